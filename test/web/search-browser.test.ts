import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor, captureItem } from './reader-fixtures.ts'

// The queue page's search in Debian's Chromium against the whole service on a real port
// (docs/web.md#search), found by the accessible names docs/web.md fixes: type, press Enter, page, clear.
const suite = browserSuite()
const live = {
  get url() {
    return suite.live.url
  },
  get harness() {
    return suite.live.harness
  },
}
const PASSWORD = 'correct horse battery'

// Chromium on a loaded 2-core machine has, rarely, stalled a first navigation; one retry absorbs it.
const BROWSER_TEST = { retry: 1, timeout: 60_000 }

let people = 0

/**
 * A new person with `count` items titled "Kestrel field note N" (and one unrelated item), signed in
 * through the pages in a fresh context; `javaScriptEnabled: false` shows the page needs none.
 */
async function signedIn(count: number, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  const email = `searcher${++people}-${Date.now()}@example.com`
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  const save = async (url: string, title: string) => {
    const id = await captureItem(live.harness, key, url)
    await live.harness.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, id] })
  }
  for (let i = 1; i <= count; i++) await save(`https://birds.example.com/${people}/${i}`, `Kestrel field note ${i}`)
  await save(`https://other.example.com/${people}`, 'Unrelated gardening tips')
  const page = await suite.newPage(options)
  await signInThroughForm(page, live.url, email, PASSWORD)
  return page
}

const results = (page: Page) => page.locator('section.results li')

describe('search in a real browser', () => {
  test(
    'type a query, press Enter, see the marked results, follow "More results", clear the search',
    async () => {
      const page = await signedIn(23)
      const box = page.getByRole('searchbox', { name: 'Search' })
      await box.fill('kestrel')
      await box.press('Enter')
      await page.waitForURL(`${live.url}/?q=kestrel`)
      await expect(box.inputValue()).resolves.toBe('kestrel')
      await page.getByRole('heading', { name: 'Results for “kestrel”' }).waitFor()
      await expect(results(page).count()).resolves.toBe(20)
      // Every snippet marks the word; nothing else is marked.
      const marks = await page.locator('section.results mark').allTextContents()
      expect(marks).toHaveLength(20)
      expect(new Set(marks)).toEqual(new Set(['Kestrel']))
      await expect(page.getByText('Unrelated gardening tips').count()).resolves.toBe(0)
      const firstPage = await page.locator('section.results a.title').allTextContents()

      await page.getByRole('link', { name: 'More results', exact: true }).click()
      await page.waitForURL(/\/\?q=kestrel&cursor=/)
      await expect(results(page).count()).resolves.toBe(3)
      await expect(page.getByRole('link', { name: 'More results', exact: true }).count()).resolves.toBe(0)
      const secondPage = await page.locator('section.results a.title').allTextContents()
      expect(new Set([...firstPage, ...secondPage]).size).toBe(23)

      await page.getByRole('link', { name: 'Clear search', exact: true }).click()
      await page.waitForURL(`${live.url}/`)
      await expect(page.getByRole('searchbox', { name: 'Search' }).inputValue()).resolves.toBe('')
      await page.getByRole('navigation', { name: 'Folders' }).waitFor()
      await expect(page.getByText('Unrelated gardening tips').isVisible()).resolves.toBe(true)
    },
    BROWSER_TEST,
  )

  test(
    'without JavaScript: the plain GET form searches, and a refused query says why beside the box',
    async () => {
      const page = await signedIn(2, { javaScriptEnabled: false })
      const box = page.getByRole('searchbox', { name: 'Search' })
      await box.fill('gardening')
      await page.getByRole('button', { name: 'Search', exact: true }).click()
      await page.waitForURL(`${live.url}/?q=gardening`)
      await expect(results(page).count()).resolves.toBe(1)
      await expect(page.locator('section.results mark').allTextContents()).resolves.toEqual(['gardening'])

      await box.fill('-kestrel')
      const answer = page.waitForResponse((response) => response.url().startsWith(`${live.url}/?q=`))
      await box.press('Enter')
      expect((await answer).status()).toBe(400)
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'q: needs a word to find, not only words to leave out',
      )
      await expect(box.inputValue()).resolves.toBe('-kestrel')
      await expect(box.getAttribute('aria-invalid')).resolves.toBe('true')

      await box.fill('zebra')
      await box.press('Enter')
      await page.waitForURL(`${live.url}/?q=zebra`)
      await page.getByText('No saved items match.', { exact: true }).waitFor()
      await expect(page.getByRole('alert').count()).resolves.toBe(0)
    },
    BROWSER_TEST,
  )
})
