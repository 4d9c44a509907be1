/** `ajsc` as a child process for the distributed tests: started, awaited until ready, killed by the test. */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'

const MAIN = resolve(import.meta.dir, '../../src/cli/main.ts')

export interface AjscProcess {
  child: ChildProcess
  match: RegExpExecArray
  stderr: () => string
}

/** Start `ajsc <args>` (tracked in `children`); resolves once its stdout matches `ready`, rejects if it exits first. */
export function startAjsc(args: string[], ready: RegExp, children: ChildProcess[]): Promise<AjscProcess> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr!.on('data', (c) => { err += c })
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (c) => {
      out += c
      const m = ready.exec(out)
      if (m) ok({ child, match: m, stderr: () => err })
    })
    child.once('exit', (code) => fail(new Error(`ajsc ${args[0]} exited (${code}): ${err}`)))
  })
}
