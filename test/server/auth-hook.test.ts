/**
 * Auth is a hook each route that needs a token gets when it is added (issue 28: no global hook
 * reading req.routeOptions per request). Every operation /openapi.json marks with bearer security
 * answers 401 without a token (HEAD of a GET route too), every other one does not, and a token
 * counts once against the rate limit per request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tokenSha256 } from '../../src/server/index.ts'
import { startTestServer, type TestServer } from './helpers.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer({ size: 1 }, {
    tenants: [
      { id: 'a', tokenSha256: tokenSha256('tok-a') },
      { id: 'rate', tokenSha256: tokenSha256('tok-rate'), limits: { requestsPerMinute: 2 } },
    ],
  })
})
afterAll(() => t.close())

interface Operation { security?: unknown[] }

describe('the auth hook', () => {
  test('every operation with bearer security refuses a request without a token; the others do not ask for one', async () => {
    const doc = (await t.req('GET', '/openapi.json', { token: null })).json as { paths: Record<string, Record<string, Operation>> }
    let secured = 0
    let open = 0
    for (const [path, ops] of Object.entries(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, 'x')
      for (const [method, op] of Object.entries(ops)) {
        const res = await t.req(method.toUpperCase(), url, { token: null, ...(method === 'post' || method === 'put' ? { body: {} } : {}) })
        if (op.security) {
          secured++
          expect([method, path, res.status]).toEqual([method, path, 401])
          expect(res.headers.get('www-authenticate')).toBe('Bearer')
        } else {
          open++
          expect([method, path, res.status === 401]).toEqual([method, path, false])
        }
      }
    }
    expect(secured).toBeGreaterThan(10)
    expect(open).toBeGreaterThanOrEqual(3)
    expect((await t.req('HEAD', '/v1/runs', { token: null })).status).toBe(401)
  })

  test('a request counts once against the rate limit (GET and HEAD alike)', async () => {
    expect((await t.req('GET', '/v1/runs', { token: 'tok-rate' })).status).toBe(200)
    expect((await t.req('HEAD', '/v1/runs', { token: 'tok-rate' })).status).toBe(200)
    const third = await t.req('GET', '/v1/runs', { token: 'tok-rate' })
    expect([third.status, third.json.error.code]).toEqual([429, 'RATE_LIMITED'])
  })
})
