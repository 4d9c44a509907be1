/**
 * The soak of issue 23, short (bench/soak.ts in a child process, 2 x 3 s on
 * 127.0.0.1): three well-behaved tenants and one hostile tenant cycling
 * through the attack classes. Asserted here, independent of the machine's
 * load: nothing the well-behaved tenants sent is lost or wrong, every hostile
 * request gets a coded answer below 500, /healthz keeps answering, and the
 * process stays under its memory ceiling. The p99 ratio (under attack / alone,
 * same run) is printed; `SOAK_SECONDS=60 bun bench/soak.ts` measures it longer.
 */
import { expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/**
 * The stated ceiling of the soak's process under Bun: base + 2 pool workers x 256 MiB + the workflow
 * threads' baseline + what a hog allocates before the 50 ms watch stops it (Bun ignores worker
 * resourceLimits; a guest outruns the watch by up to about 1 GB). Six runs at 44af914 and 4791c30
 * peaked at 2,052 to 3,189 MiB, so the earlier 2,560 was a flake, not a bound.
 */
const RSS_CEILING_MIB = 3584

test('soak: well-behaved tenants lose nothing while a hostile one cycles through the classes', () => {
  const out = spawnSync(process.execPath, [join(import.meta.dir, '../../bench/soak.ts')], { encoding: 'utf8', timeout: 90_000, env: { ...process.env, SOAK_SECONDS: '3' } })
  const line = out.stdout.trim().split('\n').pop() ?? ''
  if (!line.startsWith('{')) throw new Error(`soak failed (status ${out.status}): ${out.stderr.slice(-2000)}`)
  const r = JSON.parse(line)
  console.log(`soak: p99 alone ${r.alone.p99.toFixed(1)} ms, under attack ${r.attacked.p99.toFixed(1)} ms (x${r.p99Ratio.toFixed(2)}), peak RSS ${r.peakRssMiB} MiB, /healthz max ${r.healthzMaxMs.toFixed(0)} ms`)
  expect(r.alone.requests).toBeGreaterThan(50)
  expect(r.attacked.requests).toBeGreaterThan(50)
  expect(r.goodWrong).toBe(0)
  expect(r.goodFailed).toEqual([])
  expect(r.hostile5xx).toEqual([])
  expect(Object.keys(r.hostile).length).toBeGreaterThanOrEqual(3)
  expect(r.healthzMaxMs).toBeLessThan(1000)
  expect(r.peakRssMiB).toBeLessThan(RSS_CEILING_MIB)
}, 120_000)
