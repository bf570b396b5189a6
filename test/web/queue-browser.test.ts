import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor, captureItem } from './reader-fixtures.ts'

// The queue page (docs/web.md#queue) in Debian's Chromium against the whole service on a real port: every
// action with JavaScript (no full reload) and without, checked through the API; keyboard shortcuts; the
// axe-core audit; screenshots in light and dark, desktop and phone (written to /tmp for review).
const suite = browserSuite()
const PASSWORD = 'correct horse battery'
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

const BROWSER_TEST = { retry: 1, timeout: 60_000 }
const live = {
  get url() {
    return suite.live.url
  },
  get harness() {
    return suite.live.harness
  },
}
let people = 0

interface Person {
  page: Page
  key: string
  ids: string[]
}

/** A person with items titled as given (the first is the newest), signed in through the pages. */
async function person(
  titles: string[],
  options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<Person> {
  const email = `queue${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  const ids: string[] = []
  for (const [i, title] of [...titles].reverse().entries()) {
    const id = await captureItem(live.harness, key, `https://site${i}.example.com/${people}/${i}`)
    await live.harness.db.$client.execute({
      sql: `UPDATE saved_items SET title = ?, site_name = ?, preview_summary = ?, tags = '["ai","tools"]',
        favicon_url = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', last_saved_at = ? WHERE id = ?`,
      args: [
        title,
        `Site ${i}`,
        `What “${title}” is about, in a sentence or two.`,
        `2026-11-2${i % 10}T10:00:00.000Z`,
        id,
      ],
    })
    ids.unshift(id)
  }
  const page = await suite.newPage(options)
  await signInThroughForm(page, live.url, email, PASSWORD)
  return { page, key, ids }
}

async function items(p: Person): Promise<any[]> {
  const reply = await fetch(`${live.url}/v1/saved-items?limit=500`, { headers: { authorization: `Bearer ${p.key}` } })
  return ((await reply.json()) as { savedItems: any[] }).savedItems
}
/** Nothing wider than the screen, a screenshot for review, and no serious or critical axe-core violation. */
async function audit(page: Page, screenshot: string): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBe(0)
  await page.screenshot({ path: screenshot, fullPage: true })
  await page.evaluate(AXE)
  const found = (await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }))) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[]
  }
  const serious = found.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(serious).toEqual([])
}

const card = (p: Person, title: string) => p.page.locator('li.item-card', { hasText: title })
/** Set before an action: still there after it only if the page was not reloaded. */
const markPage = (page: Page) => page.evaluate(() => ((window as any).__stillHere = true))
const stillHere = (page: Page) => page.evaluate(() => (window as any).__stillHere === true)

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('the queue %s', (_name, javaScriptEnabled) => {
  test(
    'Mark read, Move to folder, Delete and Undo, a new folder: each outcome checked through the API',
    async () => {
      const p = await person(['Alpha article', 'Beta article'], { javaScriptEnabled })
      const { page } = p
      if (javaScriptEnabled) await markPage(page)

      await card(p, 'Alpha article').getByRole('button', { name: 'Mark read', exact: true }).click()
      await card(p, 'Alpha article').waitFor({ state: 'detached' })
      expect((await items(p)).find((i) => i.title === 'Alpha article').isRead).toBe(true)

      await page.getByRole('link', { name: 'Manage folders', exact: true }).click()
      await page.getByLabel('New folder', { exact: true }).fill('Weekend')
      await page.getByRole('button', { name: 'Create folder', exact: true }).click()
      await page.getByText('Folder created.').waitFor()
      await page.getByRole('link', { name: 'Back to your queue', exact: true }).click()
      await page.getByRole('link', { name: /^Weekend/ }).waitFor()

      await card(p, 'Beta article').getByRole('link', { name: 'Move to folder', exact: true }).click()
      await page.getByRole('radio', { name: 'Weekend' }).check()
      await page.getByRole('button', { name: 'Move', exact: true }).click()
      await page.getByText('Moved.').waitFor()
      const beta = (await items(p)).find((i) => i.title === 'Beta article')
      expect(beta.folder?.name).toBe('Weekend')

      await card(p, 'Beta article').getByRole('button', { name: 'Delete', exact: true }).click()
      await page.getByText('Deleted “Beta article”.').waitFor()
      expect((await items(p)).some((i) => i.id === beta.id)).toBe(false)
      await page.getByRole('button', { name: 'Undo', exact: true }).click()
      await page.getByText('Restored.').waitFor()
      expect((await items(p)).find((i) => i.id === beta.id)).toEqual(beta)

      await page.getByRole('link', { name: 'All', exact: true }).click()
      await card(p, 'Alpha article').waitFor()
      expect(page.url()).toBe(`${live.url}/?state=all`)
      if (javaScriptEnabled) expect(await stillHere(page)).toBe(true)
    },
    BROWSER_TEST,
  )
})

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('more of the queue %s', (_name, javaScriptEnabled) => {
  test(
    'sorts and "More items" page through every item once; a folder renamed and deleted keeps its items; open marks it',
    async () => {
      const titles = Array.from({ length: 53 }, (_, i) => `Entry ${String(i).padStart(2, '0')}`)
      const p = await person(titles, { javaScriptEnabled })
      const { page } = p
      await page.getByRole('link', { name: 'Title', exact: true }).click()
      await page.waitForURL(`${live.url}/?sort=title`)
      const first = await page.locator('li.item-card a.title').allTextContents()
      await page.getByRole('link', { name: 'More items', exact: true }).click()
      await page.waitForURL(/\/\?sort=title&cursor=/)
      await page.locator('li.item-card a.title', { hasText: 'Entry 52' }).waitFor()
      const second = await page.locator('li.item-card a.title').allTextContents()
      expect([...first, ...second]).toEqual([...titles].sort())

      await page.getByRole('link', { name: 'Manage folders', exact: true }).click()
      await page.getByLabel('New folder', { exact: true }).fill('Someday')
      await page.getByRole('button', { name: 'Create folder', exact: true }).click()
      await page.getByText('Folder created.').waitFor()
      const folder = (await (
        await fetch(`${live.url}/v1/folders`, { headers: { authorization: `Bearer ${p.key}` } })
      ).json()) as {
        folders: { id: string }[]
      }
      await fetch(`${live.url}/v1/saved-items/${p.ids[0]}/folder`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ folderId: folder.folders[0]!.id }),
      })
      await page.getByLabel('Rename Someday').fill('Some day')
      await page.getByRole('button', { name: 'Rename', exact: true }).click()
      await page.getByText('Folder renamed.').waitFor()
      expect((await items(p)).find((i) => i.id === p.ids[0]).folder.name).toBe('Some day')
      await page.getByRole('button', { name: 'Delete folder Some day', exact: true }).click()
      await page.getByText('Folder deleted. Its items are kept, in no folder.').waitFor()
      const kept = (await items(p)).find((i) => i.id === p.ids[0])
      expect(kept.folder).toBeNull()

      // Open: the title leads through the queue, which records the visit (the original is offline here).
      await page.getByRole('link', { name: 'Back to your queue', exact: true }).click()
      const popup = page.context().waitForEvent('page')
      await page.getByRole('link', { name: 'Entry 00', exact: true }).click()
      await (await popup).close()
      let read = false
      for (let tries = 0; tries < 50 && !read; tries++) {
        read = (await items(p)).find((i) => i.id === p.ids[0]).isRead
        if (!read) await Bun.sleep(100)
      }
      expect(read).toBe(true)
    },
    BROWSER_TEST,
  )
})

describe('keyboard and history (JavaScript)', () => {
  test(
    'j/k move between items, m toggles read, / goes to search, o opens; Back returns to the last view',
    async () => {
      const p = await person(['First item', 'Second item', 'Third item'])
      const { page } = p
      await markPage(page)
      await page.keyboard.press('j')
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('First item')
      await page.keyboard.press('j')
      await page.keyboard.press('j')
      await page.keyboard.press('k')
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Second item')
      await page.keyboard.press('m')
      await card(p, 'Second item').waitFor({ state: 'detached' })
      expect((await items(p)).find((i) => i.title === 'Second item').isRead).toBe(true)
      // The item now at its place is the current one.
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Third item')

      await page.keyboard.press('/')
      await expect(page.evaluate(() => (document.activeElement as HTMLInputElement).name)).resolves.toBe('q')
      await page.keyboard.press('Escape')
      await page.locator('body').click({ position: { x: 5, y: 5 } })

      await page.getByRole('link', { name: 'Oldest', exact: true }).click()
      await page.waitForURL(`${live.url}/?sort=oldest`)
      await page.goBack()
      await page.waitForURL(`${live.url}/`)
      await page.getByRole('link', { name: 'Newest', exact: true }).waitFor()
      expect(await stillHere(page)).toBe(true)

      // `o` on an item without an article opens it in a new tab, through the queue's open (which marks it).
      const request = page.context().waitForEvent('request', (r) => r.url().endsWith('/open'))
      for (const key of ['k', 'k', 'k', 'o']) await page.keyboard.press(key)
      expect((await request).url()).toBe(`${live.url}/queue/items/${p.ids[0]}/open`)
      let read = false
      for (let tries = 0; tries < 50 && !read; tries++) {
        read = (await items(p)).find((i) => i.title === 'First item').isRead
        if (!read) await Bun.sleep(100)
      }
      expect(read).toBe(true)
    },
    BROWSER_TEST,
  )
})

describe('look and accessibility', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const [device, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 360, height: 780 }],
    ] as const)
      test(
        `${scheme}, ${device}: no serious or critical axe-core violation, nothing wider than the screen`,
        async () => {
          const p = await person(
            ['A long title that has to wrap on a narrow phone screen without pushing anything sideways', 'Short one'],
            { viewport, bypassCSP: true },
          )
          const { page } = p
          await page.emulateMedia({ colorScheme: scheme })
          await page.getByRole('link', { name: 'Manage folders', exact: true }).click()
          await page.getByLabel('New folder', { exact: true }).fill('Reading list')
          await page.getByRole('button', { name: 'Create folder', exact: true }).click()
          await page.getByText('Folder created.').waitFor()
          await audit(page, `/tmp/folders-${scheme}-${device}.png`)
          await page.getByRole('link', { name: 'Back to your queue', exact: true }).click()
          await page.getByRole('link', { name: /^Reading list/ }).waitFor()
          await page.getByText('Keyboard shortcuts').click()
          await page.keyboard.press('j')
          await audit(page, `/tmp/queue-${scheme}-${device}.png`)
          await page.getByRole('link', { name: 'Move to folder' }).first().click()
          await page.getByRole('button', { name: 'Move', exact: true }).waitFor()
          await audit(page, `/tmp/move-${scheme}-${device}.png`)
          await page.goto(`${live.url}/save?url=https%3A%2F%2Fnews.example.com%2Fa&title=A%20story`)
          await audit(page, `/tmp/save-${scheme}-${device}.png`)
          await page.goto(`${live.url}/settings`)
          await page.getByRole('link', { name: 'Save to Readlater', exact: true }).waitFor()
          await audit(page, `/tmp/settings-${scheme}-${device}.png`)
        },
        BROWSER_TEST,
      )
})

describe('save from anywhere', () => {
  test(
    'the bookmarklet from settings, run on another site’s page, opens /save for it; one click saves it',
    async () => {
      const p = await person([])
      await p.page.goto(`${live.url}/settings`)
      const code = (await p.page.getByRole('link', { name: 'Save to Readlater', exact: true }).getAttribute('href'))!
      expect(code.startsWith('javascript:')).toBe(true)
      await p.page.route('https://news.example.com/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Big story</title><p>News.</p>' }),
      )
      await p.page.goto('https://news.example.com/story?id=7')
      const popup = p.page.context().waitForEvent('page')
      // As the browser runs a bookmarklet: its code, in the page it was clicked on.
      await p.page.evaluate(decodeURIComponent(code.slice('javascript:'.length)))
      const save = await popup
      await save.getByRole('button', { name: 'Save', exact: true }).waitFor()
      expect(await save.getByLabel('URL', { exact: true }).inputValue()).toBe('https://news.example.com/story?id=7')
      await save.getByText('Big story').waitFor()
      expect(await items(p)).toEqual([])
      await save.getByRole('button', { name: 'Save', exact: true }).click()
      await save.getByText('Saved to your queue.').waitFor()
      expect((await items(p)).map((i) => i.originalUrl)).toEqual(['https://news.example.com/story?id=7'])
    },
    BROWSER_TEST,
  )
})
