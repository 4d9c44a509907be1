/**
 * Writes schema/ajs-1.json from the vocabulary table (src/ast/schema.ts).
 * Run: npx bun scripts/gen-schema.ts   (test/vm/schema.test.ts checks the committed file is current)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildAjsSchema } from '../src/ast/schema.ts'

export const SCHEMA_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../schema/ajs-1.json')

/** The exact text of the schema file. */
export const schemaText = (): string => JSON.stringify(buildAjsSchema(), null, 2) + '\n'

if (import.meta.main) {
  mkdirSync(dirname(SCHEMA_PATH), { recursive: true })
  writeFileSync(SCHEMA_PATH, schemaText())
  console.log(`wrote ${SCHEMA_PATH}`)
}
