import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page, Route } from 'playwright-core'
import { articleTextMap } from '../../core/highlights/mark-article.ts'
import { articleText } from '../../core/reading/article-text.ts'
import { ARTICLE_FIXTURES } from '../core/highlights/article-fixtures.ts'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor, captureItem } from './reader-fixtures.ts'

// Highlights in the reader view in Debian's Chromium against the whole service on a real port
// (docs/web.md#highlights, docs/highlights.md#web): the script's offsets agree with the server's text on
// every fixture article; selecting text and pressing "Highlight" (or h) makes a mark without a reload, kept
// (checked through the API); colours, notes and delete from a mark's panel, by mouse and keyboard; errors
// shown with the selection kept; a link from /highlights scrolls to its mark; without JavaScript the list
// deletes; axe-core clean in light and dark, nothing wider than a 360 px screen.
const suite = browserSuite()
const PASSWORD = 'correct horse battery'
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const BROWSER_TEST = { retry: 1, timeout: 90_000 }
let people = 0

interface Person {
  page: Page
  key: string
  itemId: string
  html: string
  text: string
}

/** A person signed in through the form, with one item whose article is `html` (stored as enrichment stores it). */
async function person(
  html: string,
  options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<Person> {
  const live = suite.live
  const email = `highlights${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  const itemId = await captureItem(live.harness, key, `https://example.com/${people}/${Date.now()}`)
  const text = articleText(html)
  await live.harness.db.$client.execute({
    sql: `INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, ?, ?, ?, '2026-11-22T10:00:00.000Z')`,
    args: [itemId, text.split(/\s+/).length, html, text],
  })
  await live.harness.db.$client.execute({
    sql: "UPDATE saved_items SET title = 'Notes on memory safety', site_name = 'Field Notes', enrichment_status = 'enriched' WHERE id = ?",
    args: [itemId],
  })
  const page = await suite.newPage(options)
  await signInThroughForm(page, live.url, email, PASSWORD)
  return { page, key, itemId, html, text }
}

const api = async (p: Person, method: string, path: string, body?: unknown): Promise<any> => {
  const response = await fetch(`${suite.live.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return response.status === 204 ? null : response.json()
}
const highlightsOf = async (p: Person): Promise<any[]> =>
  (await api(p, 'GET', `/v1/saved-items/${p.itemId}/highlights`)).highlights

/** A highlight through the API, at the `n`th occurrence of `exact`. */
async function highlight(p: Person, exact: string, extra: Record<string, unknown> = {}, n = 0): Promise<any> {
  let start = -1
  for (let i = 0; i <= n; i++) start = p.text.indexOf(exact, start + 1)
  expect(start).toBeGreaterThanOrEqual(0)
  const answer = await api(p, 'POST', `/v1/saved-items/${p.itemId}/highlights`, {
    quote: { exact },
    position: { start, end: start + exact.length },
    ...extra,
  })
  return answer.highlight
}

/** Opens the reader view and waits for its script (it turns the browser's scroll restoration off). */
async function read(p: Person, hash = ''): Promise<void> {
  await p.page.goto(`${suite.live.url}/items/${p.itemId}${hash}`)
  await p.page.waitForFunction(() => history.scrollRestoration === 'manual')
}

/** Selects `exact` in the article (its `n`th occurrence in one text node's data), as a person dragging would. */
async function select(page: Page, exact: string, n = 0): Promise<void> {
  const found = await page.evaluate(
    ({ exact, n }) => {
      const body = document.querySelector('.article')!
      const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT)
      let seen = 0
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        let at = node.data.indexOf(exact)
        while (at >= 0) {
          if (seen++ === n) {
            const range = document.createRange()
            range.setStart(node, at)
            range.setEnd(node, at + exact.length)
            getSelection()!.removeAllRanges()
            getSelection()!.addRange(range)
            return true
          }
          at = node.data.indexOf(exact, at + 1)
        }
      }
      return false
    },
    { exact, n },
  )
  expect(found).toBe(true)
}

/** Set before an action: still there after it only if the page was not reloaded. */
const markPage = (page: Page) => page.evaluate(() => ((window as any).__stillHere = true))
const stillHere = (page: Page) => page.evaluate(() => (window as any).__stillHere === true)

/** Nothing wider than the screen, a screenshot, and no serious or critical axe-core violation. */
async function audit(page: Page, screenshot: string): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBe(0)
  await page.screenshot({ path: screenshot })
  await page.evaluate(AXE)
  const found = (await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }))) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[]
  }
  const serious = found.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(serious).toEqual([])
}

const PARAGRAPHS = Array.from(
  { length: 60 },
  (_, i) =>
    `<p>Paragraph ${i + 1}. Ownership and borrowing give <em>memory safety</em> without a garbage collector, and the compiler checks it before the program runs. ${'A measure of about seventy characters keeps the eye on the line. '.repeat(3)}</p>`,
).join('\n')
const ARTICLE = `<h2>Why memory safety</h2>\n${ARTICLE_FIXTURES.inline}\n${PARAGRAPHS}\n${ARTICLE_FIXTURES.lists}`

describe('offsets: the script reads the article’s text as the server stores it', () => {
  test(
    'on every fixture article, for every text node (whole and a part of it), the offsets the script posts are the server’s',
    async () => {
      const html = Object.values(ARTICLE_FIXTURES).join('\n')
      const p = await person(html)
      await read(p)
      const { page } = p
      const posted: Record<string, string>[] = []
      await page.route(`**/items/${p.itemId}/highlights`, async (route: Route) => {
        posted.push(Object.fromEntries(new URLSearchParams(route.request().postData() ?? '')))
        await route.fulfill({
          status: 422,
          contentType: 'application/json',
          body: JSON.stringify({ _tag: 'HighlightAnchorError', message: `checked ${posted.length}` }),
        })
      })
      // The server's units (decoded text, in document order) and the offset each lands at.
      const map = articleTextMap(html)
      const nodes = await page.evaluate(() => {
        const walker = document.createTreeWalker(document.querySelector('.article')!, NodeFilter.SHOW_TEXT)
        const found: string[] = []
        for (let node = walker.nextNode(); node; node = walker.nextNode()) found.push((node as Text).data)
        return found
      })
      // Align the browser's text nodes with the server's units: the same characters in the same order, but
      // for the newline right after <pre>, which the browser's parser drops.
      let unit = 0
      const starts: number[] = []
      for (const data of nodes) {
        while (!map.units.startsWith(data, unit) && map.units[unit] === '\n') unit++
        expect(map.units.startsWith(data, unit)).toBe(true)
        starts.push(unit)
        unit += data.length
      }
      const expected = (from: number, to: number): { start: number; end: number } | null => {
        let start = -1
        let end = -1
        for (let u = from; u < to; u++)
          if (map.offset[u]! >= 0) {
            start = map.offset[u]! + (u > 0 && map.offset[u - 1] === map.offset[u] ? 1 : 0)
            break
          }
        for (let u = to - 1; u >= from; u--)
          if (map.offset[u]! >= 0) {
            end = map.offset[u]! + 1
            break
          }
        if (start < 0 || end <= start || map.text.slice(start, end).trim() === '') return null
        return { start, end }
      }
      let checked = 0
      for (const [index, data] of nodes.entries()) {
        const parts: [number, number][] = [[0, data.length]]
        if (data.length > 4) parts.push([1, data.length - 2], [Math.floor(data.length / 2), data.length])
        for (const [from, to] of parts) {
          const want = expected(starts[index]! + from, starts[index]! + to)
          if (want === null) continue
          if (/[\uDC00-\uDFFF]/.test(data[from] ?? '') || /[\uD800-\uDBFF]/.test(data[to - 1] ?? '')) continue
          const before = posted.length
          await page.evaluate(
            ({ index, from, to }) => {
              const walker = document.createTreeWalker(document.querySelector('.article')!, NodeFilter.SHOW_TEXT)
              let node = walker.nextNode()
              for (let i = 0; i < index; i++) node = walker.nextNode()
              const range = document.createRange()
              range.setStart(node!, from)
              range.setEnd(node!, to)
              getSelection()!.removeAllRanges()
              getSelection()!.addRange(range)
            },
            { index, from, to },
          )
          await page.keyboard.press('h')
          await page
            .getByRole('alert')
            .filter({ hasText: `checked ${before + 1}` })
            .waitFor()
          const sent = posted.at(-1)!
          expect({ node: data, from, to, start: Number(sent.start), end: Number(sent.end) }).toEqual({
            node: data,
            from,
            to,
            ...want,
          })
          expect(sent.exact).toBe(map.text.slice(want.start, want.end))
          expect(sent.prefix).toBe(map.text.slice(Math.max(0, want.start - 32), want.start))
          expect(sent.suffix).toBe(map.text.slice(want.end, want.end + 32))
          checked++
        }
      }
      expect(checked).toBeGreaterThan(100)
      // A selection across blocks, from the first text to the last: the whole text.
      await page.evaluate(() => getSelection()!.selectAllChildren(document.querySelector('.article')!))
      await page.keyboard.press('h')
      await page
        .getByRole('alert')
        .filter({ hasText: `checked ${checked + 1}` })
        .waitFor()
      expect(posted.at(-1)).toMatchObject({ start: '0', end: String(map.text.length), exact: map.text })
    },
    BROWSER_TEST,
  )
})

describe('with JavaScript', () => {
  test(
    'select → "Highlight" (and h): the mark appears without a reload, focused, kept; then colours, a note, its edit, delete',
    async () => {
      const p = await person(ARTICLE)
      await read(p)
      const { page } = p
      await markPage(page)
      await select(page, 'garbage collector', 2)
      await page.getByRole('button', { name: 'Highlight', exact: true }).click()
      const first = page.locator('mark.hl[id]')
      await first.waitFor()
      expect(await stillHere(page)).toBe(true)
      let stored = await highlightsOf(p)
      expect(stored).toHaveLength(1)
      expect(stored[0]).toMatchObject({ quote: { exact: 'garbage collector' }, color: 'yellow', note: null })
      expect(p.text.indexOf('garbage collector', p.text.indexOf('Paragraph 3.'))).toBe(stored[0].position.start)
      expect(await first.getAttribute('id')).toBe(`highlight-${stored[0].id}`)
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(`highlight-${stored[0].id}`)
      expect(await page.evaluate(() => getSelection()!.isCollapsed)).toBe(true)
      await page.getByRole('status').filter({ hasText: 'Highlighted.' }).waitFor()
      // The list under the article has it too.
      await page.locator('li.hl-entry', { has: page.locator(`#quote-${stored[0].id}`) }).waitFor()

      // The key h, on another passage.
      await select(page, 'the compiler checks it', 5)
      await page.keyboard.press('h')
      await page.locator('mark.hl[id]').nth(1).waitFor()
      stored = await highlightsOf(p)
      expect(stored.map((h) => h.quote.exact)).toEqual(['garbage collector', 'the compiler checks it'])

      // A mark's panel: colours.
      const id = stored[0].id
      await page.locator(`#highlight-${id}`).click()
      const panel = page.getByRole('dialog', { name: 'Highlight' })
      await panel.waitFor()
      expect(await panel.getByRole('button', { name: 'Yellow' }).getAttribute('aria-pressed')).toBe('true')
      await panel.getByRole('button', { name: 'Green' }).click()
      await page.locator(`mark.hl-green#highlight-${id}`).waitFor()
      expect((await highlightsOf(p))[0].color).toBe('green')
      expect(await panel.getByRole('button', { name: 'Green' }).getAttribute('aria-pressed')).toBe('true')
      await panel.getByRole('button', { name: 'Purple' }).click()
      await page.locator(`mark.hl-purple#highlight-${id}`).waitFor()

      // A note, then its edit.
      await panel.getByRole('button', { name: 'Add note' }).click()
      await panel.getByLabel('Note', { exact: true }).fill('Compare with Go’s <GC>')
      await panel.getByRole('button', { name: 'Save note' }).click()
      await panel.getByRole('button', { name: 'Edit note' }).waitFor()
      expect((await highlightsOf(p))[0]).toMatchObject({ color: 'purple', note: 'Compare with Go’s <GC>' })
      await page
        .locator('li.hl-entry', { has: page.locator(`#quote-${id}`) })
        .locator('.hl-note')
        .filter({ hasText: 'Compare with Go’s <GC>' })
        .waitFor()
      await panel.getByRole('button', { name: 'Edit note' }).click()
      expect(await panel.getByLabel('Note', { exact: true }).inputValue()).toBe('Compare with Go’s <GC>')
      await panel.getByLabel('Note', { exact: true }).fill('Compare with Go')
      await panel.getByRole('button', { name: 'Save note' }).click()
      await page.getByRole('status').filter({ hasText: 'Note saved.' }).waitFor()
      expect((await highlightsOf(p))[0].note).toBe('Compare with Go')

      // Delete.
      await panel.getByRole('button', { name: 'Delete highlight' }).click()
      await page.locator(`#highlight-${id}`).waitFor({ state: 'detached' })
      expect(await panel.isHidden()).toBe(true)
      expect((await highlightsOf(p)).map((h) => h.id)).toEqual([stored[1].id])
      expect(await stillHere(page)).toBe(true)
    },
    BROWSER_TEST,
  )

  test(
    'by keyboard: Tab reaches a mark, Enter opens its panel, Escape closes it and focus returns',
    async () => {
      const p = await person(ARTICLE)
      const made = await highlight(p, 'memory safety', { color: 'blue', note: 'A note' })
      await read(p)
      const { page } = p
      // The mark is the next stop after the header's last control ("Download EPUB" with an article).
      await page.locator('.reader-actions a, .reader-actions button').last().focus()
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(`highlight-${made.id}`)
      await page.keyboard.press('Enter')
      const panel = page.getByRole('dialog', { name: 'Highlight' })
      await panel.waitFor()
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit note')
      expect(await panel.locator('.hl-note').textContent()).toBe('A note')
      await page.keyboard.press('Escape')
      await panel.waitFor({ state: 'hidden' })
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(`highlight-${made.id}`)
      // Space opens it too; the colours come before "Edit note".
      await page.keyboard.press('Space')
      await panel.waitFor()
      await page.keyboard.press('Shift+Tab')
      await page.keyboard.press('Enter')
      await page.locator(`mark.hl-purple#highlight-${made.id}`).waitFor()
      expect((await highlightsOf(p))[0].color).toBe('purple')
    },
    BROWSER_TEST,
  )

  test(
    'a refused highlight shows why and keeps the selection (too long: 400; not in the text: 422)',
    async () => {
      const p = await person(ARTICLE)
      await read(p)
      const { page } = p
      // The whole article is over 10,000 characters.
      expect(p.text.length).toBeGreaterThan(10_000)
      await page.evaluate(() => getSelection()!.selectAllChildren(document.querySelector('.article')!))
      await page.keyboard.press('h')
      await page.getByRole('alert').filter({ hasText: 'at most 10,000 characters' }).waitFor()
      expect(await page.evaluate(() => getSelection()!.toString().length)).toBeGreaterThan(10_000)
      expect(await highlightsOf(p)).toEqual([])
      // The article changed on the server since the page was loaded: the passage is not in its text any more.
      await select(page, 'Ownership and borrowing', 3)
      await suite.live.harness.db.$client.execute({
        sql: 'UPDATE item_contents SET text = ? WHERE item_id = ?',
        args: ['Another text entirely.', p.itemId],
      })
      await page.getByRole('button', { name: 'Highlight', exact: true }).click()
      await page.getByRole('alert').filter({ hasText: 'not in the saved text of the article' }).waitFor()
      expect(await page.evaluate(() => getSelection()!.toString())).toBe('Ownership and borrowing')
      expect(await highlightsOf(p)).toEqual([])
    },
    BROWSER_TEST,
  )

  test(
    '/highlights links to the mark: the reader view opens there (not at the saved position), the mark focused and outlined',
    async () => {
      const p = await person(ARTICLE)
      const far = await highlight(p, 'Paragraph 50. Ownership', { color: 'pink' })
      await api(p, 'PUT', `/v1/saved-items/${p.itemId}/progress`, { progress: 0.05 })
      const { page } = p
      await page.goto(`${suite.live.url}/highlights`)
      await page.getByRole('link', { name: 'Highlights', exact: true }).waitFor()
      await page.getByRole('link', { name: 'Notes on memory safety' }).click()
      await page.waitForURL(`${suite.live.url}/items/${p.itemId}#highlight-${far.id}`)
      await page.waitForFunction((id) => document.activeElement?.id === `highlight-${id}`, far.id)
      const box = await page.locator(`#highlight-${far.id}`).boundingBox()
      const height = await page.evaluate(() => innerHeight)
      expect(box!.y).toBeGreaterThan(0)
      expect(box!.y + box!.height).toBeLessThan(height)
      const outline = await page.locator(`#highlight-${far.id}`).evaluate((mark) => getComputedStyle(mark).outlineStyle)
      expect(outline).toBe('solid')
      // The list's own link does the same from within the page.
      await page.evaluate(() => scrollTo(0, 0))
      await page.getByRole('link', { name: 'Show in article' }).click()
      await page.waitForFunction(() => scrollY > 0)
    },
    BROWSER_TEST,
  )
})

describe('without JavaScript', () => {
  test(
    'the reader view lists the highlights with their notes; "Delete highlight" deletes one; nothing offers to create',
    async () => {
      const p = await person(ARTICLE, { javaScriptEnabled: false })
      const kept = await highlight(p, 'memory safety', { note: 'Keep this' })
      const gone = await highlight(p, 'garbage collector', { color: 'green' })
      await p.page.goto(`${suite.live.url}/items/${p.itemId}`)
      const { page } = p
      await page.locator(`mark#highlight-${kept.id}`).waitFor()
      expect(await page.getByRole('button', { name: 'Highlight', exact: true }).count()).toBe(0)
      expect(await page.locator('.hl-help').isHidden()).toBe(true)
      const entry = page.locator('li.hl-entry', { has: page.locator(`#quote-${gone.id}`) })
      expect(
        await page
          .locator('li.hl-entry', { has: page.locator(`#quote-${kept.id}`) })
          .locator('.hl-note')
          .textContent(),
      ).toBe('Keep this')
      await entry.getByRole('button', { name: 'Delete highlight' }).click()
      await page.waitForURL(`${suite.live.url}/items/${p.itemId}#highlights`)
      await entry.waitFor({ state: 'detached' })
      expect((await highlightsOf(p)).map((h) => h.id)).toEqual([kept.id])
      // The link jumps to the mark, which is outlined (:target).
      await page.getByRole('link', { name: 'Show in article' }).click()
      await page.waitForURL(`${suite.live.url}/items/${p.itemId}#highlight-${kept.id}`)
      const outline = await page
        .locator(`#highlight-${kept.id}`)
        .evaluate((mark) => getComputedStyle(mark).outlineStyle)
      expect(outline).toBe('solid')
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
        `${scheme}, ${device}: marks in five colours, the panel and /highlights: no serious or critical axe-core violation, nothing wider than the screen`,
        async () => {
          const p = await person(ARTICLE, { viewport, bypassCSP: true })
          const colors = ['yellow', 'green', 'blue', 'pink', 'purple']
          const made = []
          for (const [i, color] of colors.entries())
            made.push(await highlight(p, `Paragraph ${i + 1}. Ownership and borrowing`, { color, note: `Note ${i}` }))
          await highlight(p, 'memory safety', { color: 'green' }, 1)
          await highlight(p, 'and the compiler', { color: 'pink' }, 1)
          const { page } = p
          await page.emulateMedia({ colorScheme: scheme })
          await read(p)
          await page.locator(`#highlight-${made[0].id}`).scrollIntoViewIfNeeded()
          await audit(page, `/tmp/highlights-reader-${scheme}-${device}.png`)
          await page.locator(`#highlight-${made[1].id}`).click()
          await page.getByRole('dialog', { name: 'Highlight' }).waitFor()
          await audit(page, `/tmp/highlights-panel-${scheme}-${device}.png`)
          await page.getByRole('button', { name: 'Edit note' }).click()
          await audit(page, `/tmp/highlights-note-${scheme}-${device}.png`)
          await page.keyboard.press('Escape')
          await select(page, 'A measure of about seventy', 8)
          await page.getByRole('button', { name: 'Highlight', exact: true }).waitFor()
          await audit(page, `/tmp/highlights-bar-${scheme}-${device}.png`)
          await page.locator('#highlights').scrollIntoViewIfNeeded()
          await audit(page, `/tmp/highlights-list-${scheme}-${device}.png`)
          await page.goto(`${suite.live.url}/highlights`)
          await audit(page, `/tmp/highlights-page-${scheme}-${device}.png`)
        },
        BROWSER_TEST,
      )
})
