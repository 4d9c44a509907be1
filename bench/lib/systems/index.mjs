// The systems of the execution section, in report order.
import { createNative } from './native.mjs'
import { createOurs } from './ours.mjs'
import { createQuickJS } from './quickjs.mjs'
import { createSval } from './sval.mjs'
import { createJsInterpreter } from './jsinterp.mjs'

export async function loadSystems(ids, ours) {
  const make = {
    native: () => createNative(),
    ours: () => (ours.ok ? createOurs(ours.mod, ours.version) : undefined),
    quickjs: () => createQuickJS(),
    sval: () => createSval(),
    jsinterp: () => createJsInterpreter(),
  }
  const out = []
  for (const id of ids) {
    const s = await make[id]()
    if (s) out.push(s)
  }
  return out
}
