#!/usr/bin/env node
// How long an `ajsc` command takes from a fresh process, two revisions side by side:
//   node bench/cli-start.mjs <rev-before> <rev-after|.> [spawns] [-- <ajsc args>]   (default 15 spawns each)
// Each revision's own scripts/build.mjs builds its dist/ (the working tree's for '.'), then fresh
// `node dist/cli.js <args>` processes alternate between the two (so machine noise hits both alike);
// the default command is `run examples/hello.ajs --args {"name":"W"}` of this checkout. Prints the
// median and fastest wall-clock time of each side and their ratio, and the child's peak RSS.
import { execSync, spawnSync } from 'node:child_process'
import { rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { repoDir } from './lib/paths.mjs'
import { scratchDir } from './lib/revision.mjs'

const dashes = process.argv.indexOf('--')
const own = dashes < 0 ? process.argv.slice(2) : process.argv.slice(2, dashes)
const [revA, revB, spawnsArg = '15'] = own
if (!revA || !revB) {
  console.error('usage: node bench/cli-start.mjs <rev-before> <rev-after|.> [spawns] [-- <ajsc args>]')
  process.exit(2)
}
const args = dashes < 0 ? ['run', join(repoDir, 'examples/hello.ajs'), '--args', '{"name":"W"}'] : process.argv.slice(dashes + 1)
const spawns = Number(spawnsArg)
const dir = scratchDir('ajs-cli-start-')

/** dist/cli.js of `rev`, built by that revision's own build script. */
function cliOf(rev, name) {
  let src = repoDir
  if (rev !== '.') {
    execSync(`git archive --prefix=${name}/ ${rev} src scripts package.json tsconfig.json | tar -x -C ${dir}`, { cwd: repoDir })
    src = join(dir, name)
    symlinkSync(join(repoDir, 'node_modules'), join(src, 'node_modules'))
  }
  execSync('node scripts/build.mjs --quiet --no-types', { cwd: src, stdio: 'inherit' })
  return join(src, 'dist/cli.js')
}

const sides = [{ label: revA, cli: cliOf(revA, 'before'), ms: [], rssKb: [] }, { label: revB, cli: cliOf(revB, 'after'), ms: [], rssKb: [] }]
for (let i = 0; i < spawns; i++) {
  for (const side of i % 2 ? [...sides].reverse() : sides) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, side.cli, ...args], { encoding: 'utf8', cwd: repoDir })
    side.ms.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (r.status !== 0) throw new Error(`${side.label}: ajsc ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`)
    side.rssKb.push(Number(r.stderr.trim().split('\n').at(-1)))
  }
}
rmSync(dir, { recursive: true, force: true })

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2 }
console.log(`ajsc ${args.join(' ')}: ${spawns} fresh processes per side, alternating (wall clock, from spawn to exit)`)
for (const s of sides) console.log(`  ${s.label.padEnd(12)} median ${median(s.ms).toFixed(1)} ms, fastest ${Math.min(...s.ms).toFixed(1)} ms, peak RSS ${(median(s.rssKb) / 1024).toFixed(1)} MB`)
console.log(`  after / before: ${(median(sides[1].ms) / median(sides[0].ms)).toFixed(3)} (medians)`)
