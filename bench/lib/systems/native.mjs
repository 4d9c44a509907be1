// Native JS: the very same source compiled as a plain function in this
// process. This is the limit every sandbox is compared against.
export function createNative() {
  return {
    id: 'native',
    label: 'native JS',
    version: process.version,
    prepare(w) {
      // The source is a list of function declarations; return the entry.
      // eslint-disable-next-line no-new-func -- bench only, never in src/
      const entry = new Function(`${w.source}\nreturn ${w.entry}`)()
      return { isAsync: false, run: () => entry(w.args) }
    },
  }
}
