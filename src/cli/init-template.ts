/**
 * The starter project `ajsc init` writes: an agent, an app that imports it
 * through the esbuild plugin, a test (node:test) and the scripts to build,
 * test and start it. One table: file name -> content.
 */
export function starterFiles(name: string, version: string): Record<string, string> {
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      build: 'ajsc check agents && node build.mjs',
      start: 'node dist/app.js',
      test: 'node --test',
    },
    dependencies: { 'ajs-lang': `^${version}` },
    devDependencies: { esbuild: '^0.25.0' },
  }
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'agents/greet.ajs': `/**
 * Greets someone, in the language asked for.
 * @param name - who to greet
 * @param lang - "en" or "pt"
 */
function greet({ name = 'World', lang = 'en' }) {
  const word = lang === 'pt' ? 'Olá' : 'Hello'
  return { greeting: \`\${word}, \${name}!\` }
}
`,
    'app.mjs': `// Imports the agent as its AST (the esbuild plugin compiles .ajs at build time) and runs it.
import { AgentVM } from 'ajs-lang'
import greet from './agents/greet.ajs'

const run = await new AgentVM().run(greet, { name: process.argv[2] ?? 'World' })
if (run.error) {
  console.error(\`\${run.error.location ?? ''} \${run.error.code}: \${run.error.message}\`)
  process.exit(1)
}
console.log(run.result.greeting)
`,
    'build.mjs': `// Bundles app.mjs with the ajs-lang esbuild plugin: \`import x from './x.ajs'\` yields the compiled AST.
import { build } from 'esbuild'
import { ajsPlugin } from 'ajs-lang/plugins/esbuild'

await build({
  entryPoints: ['app.mjs'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outfile: 'dist/app.js',
  plugins: [ajsPlugin()],
})
`,
    'test/greet.test.mjs': `import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { AgentVM, transpile } from 'ajs-lang'

const { ast } = transpile(readFileSync(new URL('../agents/greet.ajs', import.meta.url), 'utf8'), { filename: 'agents/greet.ajs' })

test('greets in English by default', async () => {
  const run = await new AgentVM().run(ast, { name: 'Ada' })
  assert.equal(run.error, undefined)
  assert.deepEqual(run.result, { greeting: 'Hello, Ada!' })
})

test('greets in Portuguese', async () => {
  const run = await new AgentVM().run(ast, { name: 'Ada', lang: 'pt' })
  assert.deepEqual(run.result, { greeting: 'Olá, Ada!' })
})
`,
    'README.md': `# ${name}

An [AJS](https://www.npmjs.com/package/ajs-lang) agent project.

\`\`\`sh
npm install
npx ajsc run agents/greet.ajs --args '{"name":"Ada"}'   # run the agent directly
npm test                                                 # node --test
npm run build && npm start -- Ada                        # bundle app.mjs (esbuild + ajs plugin) and run it
\`\`\`
`,
  }
}
