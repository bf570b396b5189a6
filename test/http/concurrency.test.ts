import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function fileHarness(): Promise<{ h: Harness; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-concurrency-'))
  dirs.push(dir)
  const h = await createHarness({ dbUrl: `file:${join(dir, 'test.db')}` })
  const token = await (await h.user()).key()
  // Prime the OpenAPI document the harness checks replies against, so the burst is only captures.
  await h.call('GET', '/health')
  return { h, token }
}

describe('concurrent captures on a file database', () => {
  test('50 concurrent captures of one URL make one item: one 201, 49 × 200, no 5xx, one id', async () => {
    const { h, token } = await fileHarness()
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', '/v1/captures', {
          token,
          body: { url: `https://example.com/race?utm_source=r${i}`, tags: [i % 2 ? 'ai' : 'tools'] },
        }),
      ),
    )
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 200)).toHaveLength(49)
    expect(replies.filter((r) => r.body.captureResult === 'created')).toHaveLength(1)
    expect(new Set(replies.map((r) => r.body.savedItem.id)).size).toBe(1)
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    const listed = (await h.call('GET', '/v1/saved-items', { token })).body.savedItems
    expect(listed).toHaveLength(1)
    expect(listed[0].id).toBe(replies[0]!.body.savedItem.id)
    expect([...listed[0].tags].sort()).toEqual(['ai', 'tools'])
    expect(listed[0].normalizedUrl).toBe('https://example.com/race')
  })

  test('50 concurrent captures of 50 URLs make 50 items, all 201', async () => {
    const { h, token } = await fileHarness()
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', '/v1/captures', { token, body: { url: `https://example.com/many/${i}` } }),
      ),
    )
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201))
    expect(new Set(replies.map((r) => r.body.savedItem.id)).size).toBe(50)
    expect(await countRows(h.db, 'saved_items')).toBe(50)
    const listed = (await h.call('GET', '/v1/saved-items', { token })).body.savedItems
    expect(listed.map((i: any) => i.normalizedUrl).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `https://example.com/many/${i}`).sort(),
    )
  })

  test('concurrent captures by two people of one URL make one item each', async () => {
    const { h, token } = await fileHarness()
    const other = await (await h.user()).key()
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.call('POST', '/v1/captures', { token: i % 2 ? token : other, body: { url: 'https://example.com/both' } }),
      ),
    )
    expect(replies.filter((r) => r.status === 201)).toHaveLength(2)
    expect(replies.filter((r) => r.status === 200)).toHaveLength(18)
    expect(await countRows(h.db, 'saved_items')).toBe(2)
  })
})
