import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { startEnrichmentWorkers, type EnrichmentWorkers } from '../../adapters/jobs/enrichment-worker.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import { waitFor } from '../enrichment/enrichment-helpers.ts'
import { png } from '../fixtures/images/images.ts'
import { readPage } from '../fixtures/pages/read-page.ts'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'

// read_saved_item and save_url's html through the MCP SDK's client over real HTTP, against the REST twin
// (docs/reading.md#mcp, docs/mcp.md#tools).

const ARTICLE = new TextDecoder().decode(readPage('article'))

let live: LiveServer
let workers: EnrichmentWorkers
const fetched: string[] = []
const clients: Client[] = []

beforeAll(async () => {
  live = await startLiveServer()
  // A capture with html is never fetched: a fetch here is a failure the tests look for.
  workers = startEnrichmentWorkers(
    {
      db: live.harness.db,
      clock: live.harness.clock,
      log: () => {},
      fetchPage: async (url) => {
        fetched.push(url)
        throw new Error('no fetch expected')
      },
    },
    { concurrency: 2, pollMs: 10 },
  )
})
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
})
afterAll(async () => {
  await workers.stop()
  await live.stop()
})

async function person() {
  const user = await live.harness.user()
  const key = await user.key()
  const authorization = `Bearer ${key}`
  const client = new Client({ name: 'read-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), { requestInit: { headers: { authorization } } }),
  )
  clients.push(client)
  return {
    key,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    rest: async (path: string) => {
      const response = await fetch(`${live.url}${path}`, { headers: { authorization } })
      return { status: response.status, body: await response.json() }
    },
  }
}

type Person = Awaited<ReturnType<typeof person>>

/** save_url with the page; then waits until REST shows its article. */
async function saveWithPage(p: Person, url: string, html: string): Promise<string> {
  const saved = await p.call('save_url', { url, html })
  expect(saved.isError).toBeFalsy()
  const id = (saved.structuredContent as any).savedItem.id
  for (let i = 0; i < 2000; i++) {
    if ((await p.rest(`/v1/saved-items/${id}/content`)).status === 200) return id
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('the article never arrived')
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text

describe('read_saved_item', () => {
  test('markdown by default: the REST content object with markdown, truncated false, and the article as text', async () => {
    const p = await person()
    const id = await saveWithPage(p, 'https://example.com/mcp-article', ARTICLE)
    const result = await p.call('read_saved_item', { id })
    expect(result.isError).toBeFalsy()
    const rest = (await p.rest(`/v1/saved-items/${id}/content?format=markdown`)).body
    expect(result.structuredContent).toEqual({ ...rest, truncated: false })
    const text = textOf(result)
    expect(
      text.startsWith(
        '# Parsing HTML as it streams, in TypeScript\nAda Example, Example Engineering · 148 words, about 1 min\n\n',
      ),
    ).toBe(true)
    expect(text.endsWith(rest.markdown)).toBe(true)
    expect(fetched).toEqual([])
  })

  test('images archived under an earlier APP_URL are at the current one, as in REST (docs/reading.md#archived-images)', async () => {
    const p = await person()
    const id = await saveWithPage(p, 'https://example.com/mcp-moved', ARTICLE)
    // Enrichment done (its last write is after the article's), so the article stored below stays.
    await waitFor('enrichment to finish', async () => {
      const listed = (await p.rest('/v1/saved-items')).body.savedItems as { id: string; enrichmentStatus: string }[]
      return listed.find((item) => item.id === id && item.enrichmentStatus === 'enriched')
    })
    const earlier = 'http://localhost:3000'
    const article = {
      title: 'Moved',
      byline: null,
      siteName: null,
      lang: 'en',
      html: `<p>One picture.</p><p><img src="${archivedImageUrl(earlier, id, 1)}" alt="red"></p>`,
      text: 'One picture.',
      wordCount: 2,
    }
    const add = [{ n: 1, originalUrl: 'https://cdn.example/red.png', mediaType: 'image/png', bytes: png(4, 3) }]
    const stored = await storeArticle(live.harness.db, id, article, live.harness.clock.now().toISOString(), null, {
      keep: [],
      add,
    })
    expect(stored).toBe(true)
    const result = await p.call('read_saved_item', { id })
    const markdown = (result.structuredContent as { markdown: string }).markdown
    expect(markdown).toContain(`![red](${live.harness.config.appUrl}/items/${id}/images/1)`)
    expect(markdown).not.toContain(earlier)
    expect(result.structuredContent).toEqual({
      ...(await p.rest(`/v1/saved-items/${id}/content?format=markdown`)).body,
      truncated: false,
    })
  })

  test('format text: the plain text of REST', async () => {
    const p = await person()
    const id = await saveWithPage(p, 'https://example.com/mcp-text', ARTICLE)
    const result = await p.call('read_saved_item', { id, format: 'text' })
    const { html: _, ...rest } = (await p.rest(`/v1/saved-items/${id}/content`)).body
    expect(result.structuredContent).toEqual({ ...rest, truncated: false })
  })

  test('an article over 100,000 characters is cut at a paragraph break, marked truncated', async () => {
    const p = await person()
    const paragraphs = Array.from(
      { length: 400 },
      (_, i) => `<p>Paragraph ${i}: ${'a few more words of the long article '.repeat(10)}</p>`,
    ).join('\n')
    const long = ARTICLE.replace('</article>', `${paragraphs}</article>`)
    const id = await saveWithPage(p, 'https://example.com/mcp-long', long)
    const full = (await p.rest(`/v1/saved-items/${id}/content`)).body.text as string
    expect(full.length).toBeGreaterThan(100_000)
    const result = await p.call('read_saved_item', { id, format: 'text' })
    const cut = (result.structuredContent as any).text as string
    expect((result.structuredContent as any).truncated).toBe(true)
    expect(cut.length).toBeLessThanOrEqual(100_000)
    expect(cut.length).toBeGreaterThan(99_000)
    expect(full.startsWith(cut)).toBe(true)
    expect(full.slice(cut.length, cut.length + 2)).toBe('\n\n')
    expect(textOf(result)).toContain('cut at 100,000 characters')
    const markdown = await p.call('read_saved_item', { id })
    expect((markdown.structuredContent as any).truncated).toBe(true)
    expect((markdown.structuredContent as any).markdown.length).toBeLessThanOrEqual(100_000)
  })

  test('no such item, another person’s item, an item without an article: tool errors naming the type', async () => {
    const p = await person()
    const other = await person()
    const id = await saveWithPage(other, 'https://example.com/theirs', ARTICLE)
    const unknown = await p.call('read_saved_item', { id: 'nope' })
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toBe('SavedItemNotFoundError: No saved item with id "nope"')
    const theirs = await p.call('read_saved_item', { id })
    expect(theirs.isError).toBe(true)
    expect(textOf(theirs)).toStartWith('SavedItemNotFoundError:')
    const saved = await p.call('save_url', { url: 'https://example.com/not-yet' })
    const pendingId = (saved.structuredContent as any).savedItem.id
    // Nothing readable in a page with no text: the item is enriched and has no article.
    const empty = await p.call('save_url', { url: 'https://example.com/empty', html: '<html><body></body></html>' })
    const emptyId = (empty.structuredContent as any).savedItem.id
    for (const itemId of [pendingId, emptyId]) {
      const result = await p.call('read_saved_item', { id: itemId })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toStartWith('ContentNotFoundError:')
    }
    const badFormat = await p.call('read_saved_item', { id, format: 'html' })
    expect(badFormat.isError).toBe(true)
  })
})

describe('save_url with html', () => {
  test('takes a page over 64 KiB; past 5 MiB the request is 413 with nothing written', async () => {
    const p = await person()
    const big = ARTICLE.replace('</article>', `<p>${'long page text '.repeat(20_000)}</p></article>`)
    expect(big.length).toBeGreaterThan(200_000)
    const id = await saveWithPage(p, 'https://example.com/big-page', big)
    expect((await p.rest(`/v1/saved-items/${id}/content`)).body.wordCount).toBeGreaterThan(40_000)

    const before = (await p.rest('/v1/saved-items')).body.savedItems.length
    const response = await fetch(`${live.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${p.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'save_url', arguments: { url: 'https://example.com/huge', html: 'x'.repeat(5 * 1024 * 1024) } },
      }),
    })
    expect(response.status).toBe(413)
    expect((await response.json())._tag).toBe('PayloadTooLargeError')
    expect((await p.rest('/v1/saved-items')).body.savedItems.length).toBe(before)
  })

  test('a body over 64 KiB that is not a save_url with html is 413', async () => {
    const p = await person()
    const response = await fetch(`${live.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${p.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_folder', arguments: { name: 'x'.repeat(70 * 1024) } },
      }),
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({
      _tag: 'PayloadTooLargeError',
      message: 'Request body is over the 64 KiB limit',
    })
  })
})
