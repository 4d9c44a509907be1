/**
 * Node built-in modules, loaded on first use through `process.getBuiltinModule`
 * (Node >= 20.16, Bun): the capability kit can be imported anywhere cheaply and
 * pays for `node:http`/`node:dns` only when it really makes a request.
 */
const cache = new Map<string, unknown>()

export function nodeBuiltin<T>(name: string): T {
  let mod = cache.get(name)
  if (mod === undefined) {
    const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
    if (typeof get !== 'function') {
      throw new Error(`The fetch capability needs Node >= 20.16 or Bun (process.getBuiltinModule is missing for ${name})`)
    }
    mod = get(name)
    cache.set(name, mod)
  }
  return mod as T
}
