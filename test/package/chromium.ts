/**
 * Test helper: the system Chromium, headless, through playwright-core, on a
 * fresh profile directory (removed by `close`). `.ci/run` installs Chromium;
 * without it (a developer machine) the browser tests say so and skip.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const haveChromium = existsSync(CHROMIUM)

export interface TestBrowser {
  context: BrowserContext
  close(): Promise<void>
}

export async function launchChromium(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'ajs-chromium-'))
  // A fresh profile directory each launch (playwright passes it as --user-data-dir).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    timeout: 60_000,
  })
  return {
    context,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
