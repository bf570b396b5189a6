import { expect, test } from 'bun:test'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { mcpSuite } from './mcp-helpers.ts'

// list_changes through the MCP SDK's client over real HTTP, against GET /v1/changes (docs/api.md#changes,
// docs/mcp.md#tools).

const suite = mcpSuite()

async function person() {
  const live = suite.live
  const key = await (await live.harness.user()).key()
  const authorization = `Bearer ${key}`
  const client = await suite.connect(key, 'changes-test')
  const rest = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${live.url}${path}`, {
      ...init,
      headers: { authorization, 'content-type': 'application/json' },
    })
    return response.status === 204 ? null : await response.json()
  }
  return {
    call: async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'list_changes', arguments: args })) as CallToolResult,
    rest,
    save: async (url: string) =>
      ((await rest('/v1/captures', { method: 'POST', body: JSON.stringify({ url }) })) as any).savedItem.id as string,
  }
}

test('the pages of GET /v1/changes, deletions included, with a text that says how to go on', async () => {
  const p = await person()
  const kept = await p.save('https://kept.example/')
  const first = await p.call({})
  expect(first.isError).toBeFalsy()
  expect(first.structuredContent).toEqual(await p.rest('/v1/changes'))
  const cursor = (first.structuredContent as any).cursor
  const gone = await p.save('https://gone.example/')
  await p.rest(`/v1/saved-items/${gone}`, { method: 'DELETE' })
  await p.rest(`/v1/saved-items/${kept}/read`, { method: 'POST' })
  const next = await p.call({ since: cursor })
  const structured = next.structuredContent as any
  expect(structured).toEqual(await p.rest(`/v1/changes?since=${encodeURIComponent(cursor)}`))
  expect(structured.changes.map((c: any) => [c.id, c.op])).toEqual([
    [gone, 'delete'],
    [kept, 'upsert'],
  ])
  const text = (next.content[0] as { text: string }).text
  expect(text).toContain('2 changes: 1 new or changed, 1 deleted.')
  expect(text).toContain(`Next time, call with since "${structured.cursor}".`)
})

test('a cursor the API did not issue is a tool error naming the problem, not a crash', async () => {
  const p = await person()
  const result = await p.call({ since: 'garbage' })
  expect(result.isError).toBe(true)
  expect((result.content[0] as { text: string }).text).toContain('start over without since')
})
