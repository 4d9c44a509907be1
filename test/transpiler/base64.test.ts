/** btoa and atob (src/vm/builtins/globals.ts): base64 of a Latin-1 text and back, side by side with JavaScript. */
import { describe } from 'bun:test'
import { AgentVM } from '../../src/index.ts'
import { type Program, testSideBySide } from './differential/harness.ts'

const P = (name: string, body: string): Program => ({ name, source: `function main() {\n${body}\n}\n`, args: {} })

describe('btoa and atob', () => {
  testSideBySide([
    P('basic-auth-header', "const user = 'ada', pass = 's3cret:x'\nconst h = 'Basic ' + btoa(user + ':' + pass)\nreturn [h, atob(h.slice(6)), ['YQ==', 'YWI='].map(atob), btoa(12)]"),
    P('outside-latin-1-throws', "try { btoa('€') } catch (e) { return 'caught' }\nreturn 'not'"),
  ], AgentVM)
})
