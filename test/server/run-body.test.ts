/**
 * POST /v1/runs answered now leaves its AST as the text sent (the worker parses it): the answers
 * are those of a body parsed whole — a result for a good AST, 400 BAD_REQUEST for a body that is
 * not JSON (wherever the fault is), 400 REQUEST_TOO_DEEP, duplicate keys as JSON.parse reads them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { ast, startTestServer, TOKENS, type TestServer } from './helpers.ts'

let t: TestServer
beforeAll(async () => { t = await startTestServer({ size: 1 }) })
afterAll(() => t.close())

const program = JSON.stringify(ast('function main({ x }) { return { s: x + 1, t: "}\\"{" } }'))
const post = (raw: string, path = '/v1/runs') => t.req('POST', path, { raw, headers: { 'content-type': 'application/json' } })

test('a good AST runs; spacing and key order do not matter', async () => {
  for (const raw of [`{"ast":${program},"args":{"x":1}}`, ` { "args" : {"x":1} , "ast" : ${program} } `]) {
    const r = await post(raw)
    expect([r.status, r.json.result]).toEqual([200, { s: 2, t: '}"{' }])
  }
})

test('a body that is not JSON is 400 BAD_REQUEST, the fault in the AST or elsewhere, sync or async', async () => {
  const bad = program.replace('"main"', '"main" ')
  for (const raw of [
    `{"ast":${program.slice(0, -1)}x},"args":{"x":1}}`, // a stray token inside the AST
    `{"ast":{"ajs":1,"op":tru},"args":{}}`,
    `{"ast":${program},"args":{"x":1},}`, // trailing comma outside it
    `{"ast":${program},"args":{"x":}}`,
    `{"ast":${bad.replace(':', '::')}}`,
  ]) {
    for (const path of ['/v1/runs', '/v1/runs?async=1']) {
      const r = await post(raw, path)
      expect([path, r.status, r.json.error.code]).toEqual([path, 400, 'BAD_REQUEST'])
    }
  }
})

test('duplicate keys: the last "ast" is the one run; an "ast" that is not an object is refused', async () => {
  const other = JSON.stringify(ast('function main({ x }) { return 7 }'))
  expect((await post(`{"ast":${other},"ast":${program},"args":{"x":1}}`)).json.result).toEqual({ s: 2, t: '}"{' })
  expect((await post(`{"ast":${program},"ast":${other},"args":{"x":1}}`)).json.result).toBe(7)
  const r = await post(`{"ast":${program},"ast":1}`)
  expect([r.status, r.json.error.code]).toEqual([400, 'BAD_REQUEST'])
})

test('an AST nested too deep is 400 REQUEST_TOO_DEEP', async () => {
  const r = await post(`{"ast":{"ajs":1,"op":"seq","steps":${'['.repeat(5000)}${']'.repeat(5000)}}}`)
  expect([r.status, r.json.error.code]).toEqual([400, 'REQUEST_TOO_DEEP'])
})
