// A custom atom with request-context authorization. The context (user,
// permissions) is set by the host per request; guest code cannot read or
// change it, and the same program gets different rights per caller.
// Run: bun examples/custom-atom/main.ts
import { AgentVM, defineAtom, ajs } from 'ajs-lang'

const RECORDS: Record<string, { owner: string; balance: number }> = {
  acct1: { owner: 'ada', balance: 120 },
  acct2: { owner: 'bob', balance: 75 },
}

/** Reads an account: needs `accounts:read`, and non-admins only see their own. */
export const readAccount = defineAtom(
  'readAccount',
  { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  { type: 'object', properties: { owner: { type: 'string' }, balance: { type: 'number' } } },
  async ({ id }: { id: string }, ctx) => {
    const { userId, role, permissions } = ctx.context as { userId?: string; role?: string; permissions?: string[] }
    if (!permissions?.includes('accounts:read')) throw new Error('not authorized: accounts:read is required')
    const record = RECORDS[id]
    if (!record) throw new Error(`no account ${id}`)
    if (role !== 'admin' && record.owner !== userId) throw new Error(`not authorized: ${userId} cannot read ${id}`)
    return record
  },
  { cost: 5, docs: 'Read an account (authorized by the request context).' },
)

export const program = ajs(`function balance({ id }) {
  try {
    const account = readAccount({ id })
    return { ok: true, balance: account.balance }
  } catch (e) {
    return { ok: false, reason: e.message }
  }
}`, { atoms: ['readAccount'] })

export async function main() {
  const vm = new AgentVM([readAccount])
  const asUser = (context: Record<string, unknown>) => vm.run(program, { id: 'acct1' }, { context }).then((r) => r.result)
  return {
    admin: await asUser({ userId: 'root', role: 'admin', permissions: ['accounts:read'] }),
    owner: await asUser({ userId: 'ada', role: 'user', permissions: ['accounts:read'] }),
    other: await asUser({ userId: 'bob', role: 'user', permissions: ['accounts:read'] }),
    anonymous: await asUser({}),
  }
}

if (import.meta.main) console.log(JSON.stringify(await main(), null, 2))
