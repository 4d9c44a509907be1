/** What local-functions*.test.ts share: the error a source is refused with, and async programs side by side with JavaScript. */
import { expect, test } from 'bun:test'
import { transpile } from '../../src/transpiler/index.ts'
import { AgentVM } from '../../src/vm/index.ts'
import { TranspileError } from '../../src/diagnostics/diagnostic.ts'
import { type Program, runNativeAsync, runVm } from './differential/harness.ts'

export function refusal(source: string): TranspileError {
  try {
    transpile(source)
  } catch (e) {
    if (e instanceof TranspileError) return e
    throw e
  }
  throw new Error('transpiled')
}

/** One test per program whose entry is `async`: the VM's result is JavaScript's. */
export function testAsyncSideBySide(programs: readonly Program[]): void {
  for (const p of programs) {
    test(p.name, async () => {
      const native = await runNativeAsync(p)
      expect(native.ok).toBe(true)
      expect(await runVm(p, AgentVM)).toEqual(native)
    })
  }
}
