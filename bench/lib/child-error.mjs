// How a bench child process failed: a child reports its own error as
// { error } on its last stdout line; otherwise show the end of its stderr.
export function childError(p) {
  const last = p.stdout?.trim().split('\n').pop()
  let reported
  try {
    reported = JSON.parse(last).error
  } catch {}
  if (reported) throw new Error(reported)
  if (p.status !== 0) throw new Error((p.stderr || `exit ${p.status}`).trim().split('\n').filter((l) => /Error/.test(l))[0] ?? `exit ${p.status}`)
}
