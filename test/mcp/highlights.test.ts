import { describe, expect, test } from 'bun:test'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Scope } from '../../core/types.ts'
import { mcpPost, mcpSuite } from './mcp-helpers.ts'

// list_highlights and add_highlight through the MCP SDK's client over real HTTP, against their REST twins
// (docs/mcp.md#tools, docs/highlights.md#mcp); search_saved_items and list_changes see highlights as REST does.
// On the three drivers: package.json's test:libsql and test:client name this file.

const suite = mcpSuite()

const TEXT =
  'Memory safety is a property of some languages.\n\nRust gives memory safety without a garbage collector. ' +
  "Go gives memory safety with one.\n\nIn C, memory safety is the programmer's problem."

async function person() {
  const live = suite.live
  const user = await live.harness.user()
  const key = await user.key()
  const authorization = `Bearer ${key}`
  const client = await suite.connect(key, 'highlights-test')
  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${live.url}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
  }
  return {
    user,
    key,
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    rest,
    /** A saved item with an article (as enrichment would store it), or without one. */
    item: async (text: string | null = TEXT) => {
      const saved = await rest('POST', '/v1/captures', { url: `https://example.com/${crypto.randomUUID()}` })
      const id = saved.body.savedItem.id as string
      await live.harness.db.$client.execute({
        sql: 'UPDATE saved_items SET title = ? WHERE id = ?',
        args: ['On memory', id],
      })
      if (text !== null)
        await live.harness.db.$client.execute({
          sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
          args: [id, text, saved.body.savedItem.createdAt],
        })
      return id
    },
    highlightRows: async () =>
      (await live.harness.db.$client.execute({ sql: 'SELECT id FROM highlights WHERE user_id = ?', args: [user.id] }))
        .rows.length,
  }
}

/** A successful call: no isError, its text, and the structured result. */
function ok(result: CallToolResult): { structured: any; text: string } {
  expect(result.isError).toBeFalsy()
  expect(result.structuredContent).toBeDefined()
  return { structured: result.structuredContent, text: (result.content[0] as { text: string }).text }
}

/** A refused call: isError, no structured result, the text. */
function failed(result: CallToolResult): string {
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  return (result.content[0] as { text: string }).text
}

describe('add_highlight', () => {
  test('highlights the first occurrence of the text, with a note; the result is what REST then lists', async () => {
    const p = await person()
    const itemId = await p.item()
    // Matched exactly, case included: "Memory safety" at the start is not it; the first "memory safety" is.
    const { structured, text } = ok(
      await p.call('add_highlight', { savedItemId: itemId, exact: 'memory safety', note: 'The theme' }),
    )
    const start = TEXT.indexOf('memory safety')
    expect(structured).toEqual({
      highlight: {
        id: expect.any(String),
        savedItemId: itemId,
        quote: {
          exact: 'memory safety',
          prefix: TEXT.slice(start - 32, start),
          suffix: TEXT.slice(start + 13, start + 45),
        },
        position: { start, end: start + 13 },
        color: 'yellow',
        note: 'The theme',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    })
    const listed = (await p.rest('GET', `/v1/saved-items/${itemId}/highlights`)).body
    expect(listed).toEqual({ highlights: [structured.highlight] })
    expect(text).toBe(
      `Highlighted in saved item ${itemId}: "memory safety" — note: "The theme" (yellow, at ${start}–${start + 13}; id ${structured.highlight.id})`,
    )
    // Without a note: none; the same passage again is a second highlight (the tool is not idempotent).
    const again = ok(await p.call('add_highlight', { savedItemId: itemId, exact: 'memory safety' })).structured
    expect(again.highlight).toMatchObject({ note: null, position: { start, end: start + 13 } })
    expect(again.highlight.id).not.toBe(structured.highlight.id)
  })

  test('refusals are tool errors with their tag, and write nothing', async () => {
    const p = await person()
    const itemId = await p.item()
    const bare = await p.item(null)
    expect(failed(await p.call('add_highlight', { savedItemId: itemId, exact: 'memory unsafety' }))).toStartWith(
      'HighlightAnchorError: ',
    )
    expect(failed(await p.call('add_highlight', { savedItemId: bare, exact: 'memory' }))).toStartWith(
      'ContentNotFoundError: ',
    )
    expect(failed(await p.call('add_highlight', { savedItemId: 'nope', exact: 'memory' }))).toStartWith(
      'SavedItemNotFoundError: ',
    )
    // The schema's rules, as REST's: an empty passage, a note over 10,000 characters, a lone surrogate (core).
    expect(failed(await p.call('add_highlight', { savedItemId: itemId, exact: '' }))).toContain(
      'Input validation error: Invalid arguments for tool add_highlight: exact',
    )
    expect(
      failed(await p.call('add_highlight', { savedItemId: itemId, exact: 'Rust', note: 'x'.repeat(10_001) })),
    ).toContain('Invalid arguments for tool add_highlight: note')
    expect(failed(await p.call('add_highlight', { savedItemId: itemId, exact: 'Rust', note: '\uD800' }))).toStartWith(
      'ValidationError: body.note',
    )
    expect(await p.highlightRows()).toBe(0)
  })

  test('another person’s item is not found, and their highlights are never listed', async () => {
    const mine = await person()
    const theirs = await person()
    const theirItem = await theirs.item()
    ok(await theirs.call('add_highlight', { savedItemId: theirItem, exact: 'Rust', note: 'private' }))
    expect(failed(await mine.call('add_highlight', { savedItemId: theirItem, exact: 'Rust' }))).toStartWith(
      'SavedItemNotFoundError: ',
    )
    expect(failed(await mine.call('list_highlights', { savedItemId: theirItem }))).toStartWith(
      'SavedItemNotFoundError: ',
    )
    expect(ok(await mine.call('list_highlights')).structured).toEqual({ highlights: [], nextCursor: null })
    expect(ok(await mine.call('list_highlights')).text).toBe('No highlights.')
    expect(ok(await theirs.call('list_highlights')).structured.highlights).toHaveLength(1)
  })
})

describe('list_highlights', () => {
  test('with savedItemId: the item’s highlights in text order, as GET /v1/saved-items/{id}/highlights', async () => {
    const p = await person()
    const itemId = await p.item()
    const empty = ok(await p.call('list_highlights', { savedItemId: itemId }))
    expect(empty.structured).toEqual({ highlights: [], nextCursor: null })
    expect(empty.text).toBe(`Saved item ${itemId} has no highlights.`)
    // Added out of text order.
    for (const exact of ["programmer's problem", 'Rust', 'garbage collector'])
      ok(
        await p.call('add_highlight', {
          savedItemId: itemId,
          exact,
          ...(exact === 'Rust' ? { note: 'line\nbreak' } : {}),
        }),
      )
    const { structured, text } = ok(await p.call('list_highlights', { savedItemId: itemId }))
    const rest = (await p.rest('GET', `/v1/saved-items/${itemId}/highlights`)).body
    expect(structured).toEqual({ highlights: rest.highlights, nextCursor: null })
    expect(structured.highlights.map((h: any) => h.quote.exact)).toEqual([
      'Rust',
      'garbage collector',
      "programmer's problem",
    ])
    const lines = text.split('\n')
    expect(lines[0]).toBe(`3 highlights on saved item ${itemId}, in text order:`)
    expect(lines[1]).toBe(
      `1. "Rust" — note: "line\\nbreak" (yellow, at ${TEXT.indexOf('Rust')}–${TEXT.indexOf('Rust') + 4}; id ${structured.highlights[0].id})`,
    )
    expect(lines).toHaveLength(4)
    // A limit takes the first in text order; a cursor has nothing to page here.
    const first = ok(await p.call('list_highlights', { savedItemId: itemId, limit: 1 }))
    expect(first.structured).toEqual({ highlights: rest.highlights.slice(0, 1), nextCursor: null })
    expect(first.text.split('\n')[0]).toBe(`3 highlights on saved item ${itemId}, in text order (the first 1 shown):`)
    expect(failed(await p.call('list_highlights', { savedItemId: itemId, cursor: 'x' }))).toStartWith(
      'ValidationError: cursor:',
    )
  })

  test('without: the newest 20 across items with their items, as GET /v1/highlights, and nextCursor to page', async () => {
    const p = await person()
    const items = [await p.item(), await p.item()]
    const words = TEXT.split(/\W+/).filter((word) => word.length > 0)
    const created: string[] = []
    for (let i = 0; i < 23; i++) {
      const result = ok(await p.call('add_highlight', { savedItemId: items[i % 2]!, exact: words[i]! }))
      created.push(result.structured.highlight.id)
    }
    const page = ok(await p.call('list_highlights'))
    const rest = await p.rest('GET', '/v1/highlights?limit=20')
    expect(page.structured.highlights).toEqual(rest.body.highlights)
    expect(page.structured.highlights).toHaveLength(20)
    expect(page.structured.highlights[0].savedItem).toEqual({
      id: page.structured.highlights[0].savedItemId,
      title: 'On memory',
      normalizedUrl: expect.stringMatching(/^https:\/\/example\.com\//),
    })
    const link = new URL(/<([^>]+)>/.exec(rest.headers.get('link')!)![1]!)
    expect(page.structured.nextCursor).toBe(link.searchParams.get('cursor'))
    expect(page.text.split('\n')[0]).toBe('20 highlights, newest first:')
    expect(page.text).toContain(`(item id ${page.structured.highlights[0].savedItemId})`)
    expect(page.text).toContain(`on "On memory" <${page.structured.highlights[0].savedItem.normalizedUrl}>`)
    expect(page.text).toEndWith(`More highlights: call again with cursor "${page.structured.nextCursor}".`)
    const rest2 = ok(await p.call('list_highlights', { cursor: page.structured.nextCursor }))
    expect(rest2.structured.nextCursor).toBeNull()
    expect([...page.structured.highlights, ...rest2.structured.highlights].map((h: any) => h.id).sort()).toEqual(
      created.sort(),
    )
    const two = ok(await p.call('list_highlights', { limit: 2 }))
    expect(two.structured.highlights).toEqual(rest.body.highlights.slice(0, 2))
    // Limits as REST's: 1 to 500.
    expect(failed(await p.call('list_highlights', { limit: 501 }))).toContain(
      'Invalid arguments for tool list_highlights: limit',
    )
    expect(failed(await p.call('list_highlights', { cursor: 'garbage' }))).toStartWith('ValidationError: cursor:')
  })

  test('a long quote or note is cut in the text only; structuredContent has it whole', async () => {
    const p = await person()
    const long = `${'word '.repeat(400)}end`
    const itemId = await p.item(long)
    ok(await p.call('add_highlight', { savedItemId: itemId, exact: long, note: 'n'.repeat(5000) }))
    const { structured, text } = ok(await p.call('list_highlights', { savedItemId: itemId }))
    expect(structured.highlights[0].quote.exact).toBe(long)
    expect(structured.highlights[0].note).toBe('n'.repeat(5000))
    expect(text).toContain(`"${long.slice(0, 1000)}…"`)
    expect(text).toContain(`note: "${'n'.repeat(1000)}…"`)
  })
})

describe('scopes: as REST, a missing one is HTTP 403 insufficient_scope before the tool runs', () => {
  test.each([
    ['add_highlight', 'saved-items:write'],
    ['list_highlights', 'saved-items:read'],
  ] as const)('%s without %s', async (tool, scope) => {
    const p = await person()
    const itemId = await p.item()
    const granted = ['saved-items:read', 'saved-items:write', 'folders:read'].filter((s) => s !== scope) as Scope[]
    const narrow = await p.user.key(granted)
    const args = tool === 'add_highlight' ? { savedItemId: itemId, exact: 'Rust' } : { savedItemId: itemId }
    const reply = await mcpPost(suite.live.url, narrow, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    })
    expect(reply.status).toBe(403)
    expect(reply.headers.get('www-authenticate')).toContain(
      `error="insufficient_scope", scope="${[...granted, scope].join(' ')}"`,
    )
    expect(await reply.json()).toMatchObject({ _tag: 'InsufficientScopeError', requiredScope: scope })
    expect(await p.highlightRows()).toBe(0)
  })
})

describe('the other tools see highlights', () => {
  test('search_saved_items finds a note’s word, with has:highlights; list_changes has highlight entries', async () => {
    const p = await person()
    const itemId = await p.item()
    await p.item()
    const since = (ok(await p.call('list_changes')).structured as any).cursor
    const { highlight } = ok(
      await p.call('add_highlight', { savedItemId: itemId, exact: 'garbage collector', note: 'see the capybara' }),
    ).structured
    const search = ok(await p.call('search_saved_items', { query: 'capybara has:highlights' }))
    expect(search.structured).toEqual({
      results: (await p.rest('GET', '/v1/search?q=capybara%20has%3Ahighlights')).body.results,
      nextCursor: null,
    })
    expect(search.structured.results.map((r: any) => [r.savedItem.id, r.snippet])).toEqual([
      [itemId, 'see the «capybara»'],
    ])
    const changes = ok(await p.call('list_changes', { since }))
    expect(changes.structured.changes).toEqual([{ kind: 'highlight', id: highlight.id, op: 'upsert', highlight }])
    expect(changes.text).toContain('1 change: 1 new or changed, 0 deleted.')
  })
})
