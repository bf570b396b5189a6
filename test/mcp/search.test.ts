import { expect, test } from 'bun:test'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { mcpSuite } from './mcp-helpers.ts'

// search_saved_items through the MCP SDK's client over real HTTP, against GET /v1/search (docs/search.md#mcp).

const suite = mcpSuite()

async function person() {
  const live = suite.live
  const key = await (await live.harness.user()).key()
  const authorization = `Bearer ${key}`
  const client = await suite.connect(key, 'search-test')
  return {
    call: async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'search_saved_items', arguments: args })) as CallToolResult,
    rest: async (path: string) => {
      const response = await fetch(`${live.url}${path}`, { headers: { authorization } })
      return { status: response.status, headers: response.headers, body: await response.json() }
    },
    save: async (url: string, title: string) => {
      const response = await fetch(`${live.url}/v1/captures`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      })
      const id = ((await response.json()) as any).savedItem.id
      await live.harness.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, id] })
      return id as string
    },
  }
}

test('the results of GET /v1/search, with nextCursor for the next page, and a text a model can read', async () => {
  const p = await person()
  for (let i = 0; i < 3; i++) await p.save(`https://example.com/garden-${i}`, `Gardening guide part ${i}`)
  await p.save('https://example.com/other', 'Cooking')
  const rest = await p.rest('/v1/search?q=gardening&limit=2')
  const result = await p.call({ query: 'gardening', limit: 2 })
  expect(result.isError).toBeFalsy()
  const structured = result.structuredContent as any
  expect(structured.results).toEqual(rest.body.results)
  expect(structured.nextCursor).toBe(
    new URL(/<([^>]+)>/.exec(rest.headers.get('link')!)![1]!).searchParams.get('cursor'),
  )
  const text = (result.content[0] as { text: string }).text
  // The three score alike and may be saved in the same millisecond: the text follows whatever order came.
  const first = structured.results[0].savedItem
  expect(text.startsWith(`2 results, best first:\n1. ${first.title} <${first.originalUrl}>`)).toBe(true)
  expect(text).toContain(`«Gardening» guide part ${first.title.at(-1)}`)
  expect(text).toContain(`cursor "${structured.nextCursor}"`)
  const next = await p.call({ query: 'gardening', limit: 2, cursor: structured.nextCursor })
  const titles = [...structured.results, ...(next.structuredContent as any).results].map((r: any) => r.savedItem.title)
  expect(titles.sort()).toEqual(['Gardening guide part 0', 'Gardening guide part 1', 'Gardening guide part 2'])
  expect((next.structuredContent as any).nextCursor).toBeNull()
})

test('no match is an empty list; a bad query is a tool error naming the problem', async () => {
  const p = await person()
  await p.save('https://example.com/x', 'Something')
  const none = await p.call({ query: 'nothing-like-this' })
  expect((none.structuredContent as any).results).toEqual([])
  expect((none.content[0] as { text: string }).text).toBe('No saved items match.')
  const bad = await p.call({ query: 'type:podcast' })
  expect(bad.isError).toBe(true)
  expect((bad.content[0] as { text: string }).text).toBe(
    'ValidationError: q: type:"podcast" is not a filter value; expected type:article|video|website|repository',
  )
})
