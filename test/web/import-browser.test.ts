import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { unzipSync } from 'fflate'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { startImportWorker, type ImportWorker } from '../../adapters/jobs/import-worker.ts'
import { random } from '../helpers/harness.ts'
import { launchBrowser, signInThroughForm, startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor } from './reader-fixtures.ts'

// Settings' "Import" and "Export" in Debian's Chromium against the whole service on a real port, with an
// import worker running as in a server (docs/import-export.md#web): upload, follow the progress bar to
// the summary, download each export; with and without JavaScript.
let live: LiveServer
let browser: Browser
let worker: ImportWorker
const contexts: BrowserContext[] = []
const PASSWORD = 'correct horse battery'

const POCKET = [
  'title,url,time_added,tags,status',
  'Kestrels,https://birds.example.com/kestrel,1700000000,ai,unread',
  'Owls,https://birds.example.com/owl,1600000000,,archive',
  'Broken,javascript:alert(1),1600000000,,unread',
  'Hawks,https://birds.example.com/hawk,1650000000,gardening,unread',
].join('\n')

beforeAll(async () => {
  ;[live, browser] = await Promise.all([
    startLiveServer({ env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' } }),
    launchBrowser(),
  ])
  worker = startImportWorker(
    { db: live.harness.db, clock: live.harness.clock, random, log: () => {} },
    { batchSize: 1, pollMs: 50, leaseMs: 10_000 },
  )
})

afterAll(async () => {
  await worker?.stop()
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  await live?.stop()
})

const BROWSER_TEST = { retry: 1, timeout: 60_000 }
let people = 0

async function signedIn(options: { javaScriptEnabled?: boolean } = {}): Promise<{ page: Page; key: string }> {
  const email = `importer${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  if (!browser.isConnected()) browser = await launchBrowser()
  // Without the offline worker (test/web/offline-browser.test.ts has it): pages load as they did.
  const context = await browser.newContext({
    serviceWorkers: 'block',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...options,
  })
  context.setDefaultTimeout(15_000)
  contexts.push(context)
  const page = await context.newPage()
  await signInThroughForm(page, live.url, email, PASSWORD)
  return { page, key }
}

const items = async (key: string) =>
  (
    await (
      await live.harness.server.fetch(
        new Request(`${live.url}/v1/saved-items?sort=oldest`, { headers: { authorization: `Bearer ${key}` } }),
        { clientIp: '127.0.0.1' },
      )
    ).json()
  ).savedItems as { normalizedUrl: string; isRead: boolean; tags: string[] }[]

describe('Settings › Import', () => {
  for (const javaScriptEnabled of [true, false])
    test(
      `upload a Pocket file, follow the progress bar to the summary and the errors (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`,
      async () => {
        const { page, key } = await signedIn({ javaScriptEnabled })
        await page.goto(`${live.url}/settings`)
        await page
          .getByLabel('File', { exact: true })
          .setInputFiles({ name: 'pocket.csv', mimeType: 'text/csv', buffer: Buffer.from(POCKET) })
        await page.getByRole('button', { name: 'Import', exact: true }).click()
        await page.waitForURL(/\/settings\/imports\/[0-9a-f-]+$/)
        await expect(page.locator('progress#import-progress').count()).resolves.toBe(1)
        // The page reloads itself until the job ends.
        await page.locator('.import-summary').waitFor({ timeout: 20_000 })
        await expect(page.locator('.import-summary').textContent()).resolves.toBe('3 created, 0 updated, 1 skipped')
        await expect(page.locator('progress#import-progress').getAttribute('value')).resolves.toBe('4')
        await expect(page.locator('ul.import-errors li').allTextContents()).resolves.toEqual([
          expect.stringMatching(/^Line 4: /),
        ])
        await expect(page.getByText('Tags not kept').textContent()).resolves.toContain('gardening')
        const saved = await items(key)
        expect(saved.map((i) => [i.normalizedUrl, i.isRead, i.tags])).toEqual([
          ['https://birds.example.com/owl', true, []],
          ['https://birds.example.com/hawk', false, []],
          ['https://birds.example.com/kestrel', false, ['ai']],
        ])
        // Settings lists the import, done.
        await page.getByRole('link', { name: 'Back to settings' }).click()
        await expect(
          page.locator('section[aria-labelledby="import"] td[data-label="State"]').first().textContent(),
        ).resolves.toBe('Done')
      },
      BROWSER_TEST,
    )

  test(
    'a file that is no supported format: refused on the settings page, nothing imported',
    async () => {
      const { page, key } = await signedIn()
      await page.goto(`${live.url}/settings`)
      await page.getByLabel('File', { exact: true }).setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('just words, no links at all'),
      })
      await page.getByRole('button', { name: 'Import', exact: true }).click()
      await expect(page.getByRole('alert').first().textContent()).resolves.toContain('Nothing was imported')
      expect(await items(key)).toEqual([])
    },
    BROWSER_TEST,
  )
})

describe('Settings › Export', () => {
  test(
    'each link downloads the library in its format',
    async () => {
      const { page } = await signedIn()
      await page.goto(`${live.url}/settings`)
      await page
        .getByLabel('File', { exact: true })
        .setInputFiles({ name: 'pocket.csv', mimeType: 'text/csv', buffer: Buffer.from(POCKET) })
      await page.getByRole('button', { name: 'Import', exact: true }).click()
      await page.locator('.import-summary').waitFor({ timeout: 20_000 })
      await page.goto(`${live.url}/settings`)
      for (const [name, check] of [
        ['Export as JSON', (text: string) => expect(JSON.parse(text).savedItems.length).toBe(3)],
        ['Export as bookmarks (HTML)', (text: string) => expect(text.match(/<DT><A /g)?.length).toBe(3)],
        ['Export as CSV', (text: string) => expect(text.trim().split('\r\n').length).toBe(4)],
      ] as const) {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()])
        expect(download.suggestedFilename()).toMatch(/^readlater-export-\d{4}-\d{2}-\d{2}\.(json|html|csv)$/)
        check(readFileSync((await download.path())!, 'utf8'))
      }
      // The highlights as Markdown: a zip, empty here (nothing is highlighted yet; docs/import-export.md#markdown-export).
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Export as Markdown (highlights)' }).click(),
      ])
      expect(download.suggestedFilename()).toMatch(/^readlater-highlights-\d{4}-\d{2}-\d{2}\.zip$/)
      expect(unzipSync(new Uint8Array(readFileSync((await download.path())!)))).toEqual({})
    },
    BROWSER_TEST,
  )
})
