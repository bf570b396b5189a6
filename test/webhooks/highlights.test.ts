import { afterEach, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { systemClock } from '../../core/time.ts'
import { WEBHOOK_EVENTS } from '../../core/webhooks/events.ts'
import type { Harness } from '../helpers/harness.ts'
import { signedInWithKey } from '../web/fixtures.ts'
import { createWebhook, outboxRows, startReceiver, until, webhookHarness, workersFor } from './webhook-helpers.ts'

// docs/webhooks.md#events, docs/highlights.md#changes-feed-and-webhooks: highlight.created, highlight.updated and
// highlight.deleted, queued by migration 0015's triggers in the transaction of each change (on the three drivers:
// package.json's test:libsql and test:client run this folder), with bodies written as an item's are.

const HIGHLIGHT_EVENTS = ['highlight.created', 'highlight.updated', 'highlight.deleted']
// A note a JSON encoder could write several ways: quotes, a backslash, line breaks, a tab, a control character,
// non-ASCII and an emoji. SQLite's json_object (the deletion's body) and JSON.stringify (the first attempt's)
// must write it alike.
const NOTE = 'She said "no" \\ then:\nline two\r\n\ttabbed \u0001 café 東京 🎉 \u2028'
const TEXT = 'Rust gives memory safety without a garbage collector. Go gives memory safety with one.'

const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function withItem(h: Harness, key: string, text = TEXT): Promise<string> {
  const capture = await h.call('POST', '/v1/captures', {
    token: key,
    body: { url: `https://example.com/${crypto.randomUUID()}` },
  })
  const id = capture.body.savedItem.id as string
  await h.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
    args: [id, text, capture.body.savedItem.createdAt],
  })
  return id
}

async function highlight(h: Harness, key: string, itemId: string, body: Record<string, unknown>) {
  const reply = await h.call('POST', `/v1/saved-items/${itemId}/highlights`, { token: key, body })
  expect(reply.status).toBe(201)
  return reply.body.highlight
}

const highlightRows = async (h: Harness) =>
  (await outboxRows(h)).filter((row) => String(row.type).startsWith('highlight.'))

describe('the outbox', () => {
  test('created, a real change, no message for a no-op patch, deleted with the highlight as it was', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const itemId = await withItem(h, key)
    const created = await highlight(h, key, itemId, { quote: { exact: 'memory safety' }, color: 'green' })
    h.clock.advance(1000)
    const patched = (await h.call('PATCH', `/v1/highlights/${created.id}`, { token: key, body: { note: NOTE } })).body
      .highlight
    h.clock.advance(1000)
    // The note and colour it has: no change, no message (docs/api.md#no-op-writes).
    await h.call('PATCH', `/v1/highlights/${created.id}`, { token: key, body: { note: NOTE, color: 'green' } })
    expect((await highlightRows(h)).map((row) => [row.type, row.entity_id, row.body])).toEqual([
      ['highlight.created', created.id, null],
      ['highlight.updated', created.id, null],
    ])
    expect(await h.call('DELETE', `/v1/highlights/${created.id}`, { token: key })).toMatchObject({ status: 204 })
    const rows = await highlightRows(h)
    expect(rows.map((row) => row.type)).toEqual(['highlight.created', 'highlight.updated', 'highlight.deleted'])
    // Every message not yet sent now carries the highlight as it was when deleted, as REST last showed it, in
    // the same bytes JSON.stringify writes (docs/webhooks.md#events).
    for (const row of rows) {
      const body = JSON.parse(String(row.body))
      expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data'])
      expect(body.type).toBe(row.type)
      expect(body.timestamp).toBe(new Date(Number(row.created_at_ms)).toISOString())
      expect(String(row.body)).toBe(
        JSON.stringify({ type: row.type, timestamp: body.timestamp, data: { highlight: patched } }),
      )
    }
    expect(patched.note).toBe(NOTE)
  })

  test('re-anchoring: a highlight that moves or is lost is highlight.updated; one found where it was is none', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/in', ['highlight.updated'])
    const itemId = await withItem(h, key)
    const moved = await highlight(h, key, itemId, { quote: { exact: 'garbage collector' } })
    const lost = await highlight(h, key, itemId, { quote: { exact: 'with one' } })
    const article = (text: string) => ({
      title: null,
      byline: null,
      siteName: null,
      lang: null,
      wordCount: 1,
      html: '<p>x</p>',
      text,
    })
    await storeArticle(h.db, itemId, article(TEXT), h.clock.now().toISOString(), null)
    expect(await highlightRows(h)).toEqual([])
    await storeArticle(
      h.db,
      itemId,
      article(`Intro. ${TEXT.replace('with one', 'too')}`),
      h.clock.now().toISOString(),
      null,
    )
    expect((await highlightRows(h)).map((row) => [row.type, row.entity_id]).sort()).toEqual(
      [
        ['highlight.updated', moved.id],
        ['highlight.updated', lost.id],
      ].sort(),
    )
  })

  test('deleting an item queues highlight.deleted for each of its highlights, then saved_item.deleted', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const itemId = await withItem(h, key)
    const a = await highlight(h, key, itemId, { quote: { exact: 'Rust' }, note: 'first' })
    const b = await highlight(h, key, itemId, { quote: { exact: 'Go gives' } })
    const before = (await outboxRows(h)).length
    expect((await h.call('DELETE', `/v1/saved-items/${itemId}`, { token: key })).status).toBe(204)
    const rows = (await outboxRows(h)).slice(before)
    expect(rows.map((row) => row.type)).toEqual(['highlight.deleted', 'highlight.deleted', 'saved_item.deleted'])
    expect(
      rows
        .slice(0, 2)
        .map((row) => JSON.parse(String(row.body)).data.highlight)
        .sort((x, y) => (x.id < y.id ? -1 : 1)),
    ).toEqual([a, b].sort((x, y) => (x.id < y.id ? -1 : 1)))
  })

  test('only subscribed events, only the owner’s webhooks', async () => {
    const { h, key } = await webhookHarness()
    await createWebhook(h, key, 'https://hooks.example.com/items', ['saved_item.created', 'saved_item.deleted'])
    const deletes = await createWebhook(h, key, 'https://hooks.example.com/deletes', ['highlight.deleted'])
    const other = await (await h.user()).key()
    await createWebhook(h, other, 'https://hooks.example.com/other', HIGHLIGHT_EVENTS)
    const itemId = await withItem(h, key)
    const created = await highlight(h, key, itemId, { quote: { exact: 'Rust' } })
    await h.call('PATCH', `/v1/highlights/${created.id}`, { token: key, body: { color: 'blue' } })
    await h.call('DELETE', `/v1/highlights/${created.id}`, { token: key })
    expect((await highlightRows(h)).map((row) => [row.webhook_id, row.type])).toEqual([
      [deletes.id, 'highlight.deleted'],
    ])
    expect(HIGHLIGHT_EVENTS.every((event) => (WEBHOOK_EVENTS as readonly string[]).includes(event))).toBe(true)
  })

  test('the web queue’s Delete and Undo: highlight.deleted, then the item and highlight.created again', async () => {
    const w = await signedInWithKey('highlight-webhooks-undo@example.com')
    await createWebhook(w.h, w.key, 'https://hooks.example.com/all', [...WEBHOOK_EVENTS])
    const itemId = await withItem(w.h, w.key)
    const a = await highlight(w.h, w.key, itemId, { quote: { exact: 'Rust' }, note: 'kept' })
    const before = (await outboxRows(w.h)).length
    expect((await w.web.post(`/queue/items/${itemId}/delete`, {})).status).toBe(303)
    expect((await w.web.post(`/queue/items/${itemId}/restore`, {})).location).toBe('/?done=restored')
    const rows = (await outboxRows(w.h)).slice(before)
    expect(rows.map((row) => [row.type, row.entity_id])).toEqual([
      ['highlight.deleted', a.id],
      ['saved_item.deleted', itemId],
      ['saved_item.created', itemId],
      ['highlight.created', a.id],
    ])
  })
})

describe('delivery', () => {
  test('highlight.created carries the highlight as it is at the first attempt, signed, the bytes kept for retries', async () => {
    const { h, key } = await webhookHarness()
    const r = startReceiver()
    cleanups.push(() => r.stop())
    const hook = await createWebhook(h, key, r.url, ['highlight.created'])
    const itemId = await withItem(h, key)
    const created = await highlight(h, key, itemId, { quote: { exact: 'garbage collector' } })
    // Changed before the first attempt: the message shows it as it is then.
    const patched = (await h.call('PATCH', `/v1/highlights/${created.id}`, { token: key, body: { note: NOTE } })).body
      .highlight
    const w = workersFor(h, {}, {}, systemClock)
    cleanups.push(() => w.stop())
    await until('attempt 1', () => r.received.length === 1)
    const got = r.received[0]!
    const payload = new Webhook(hook.secret).verify(got.body, got.headers) as any
    expect(payload.type).toBe('highlight.created')
    // The wire shape exactly, fields in order: what GET /v1/saved-items/{id}/highlights answers.
    const listed = (await h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: key })).body.highlights[0]
    expect(JSON.stringify(payload.data)).toBe(JSON.stringify({ highlight: listed }))
    expect(listed).toEqual(patched)
    // The first attempt wrote its body to the outbox: a retry sends those bytes (docs/webhooks.md#events).
    const [row] = await highlightRows(h)
    expect(got.body).toBe(String(row!.body))
  })

  test('a highlight deleted before its first attempt: highlight.created and highlight.deleted both carry it as it was', async () => {
    const { h, key } = await webhookHarness()
    const r = startReceiver()
    cleanups.push(() => r.stop())
    await createWebhook(h, key, r.url, HIGHLIGHT_EVENTS)
    const itemId = await withItem(h, key)
    const created = await highlight(h, key, itemId, { quote: { exact: 'Rust' }, note: NOTE })
    await h.call('DELETE', `/v1/highlights/${created.id}`, { token: key })
    const w = workersFor(h, {}, {}, systemClock)
    cleanups.push(() => w.stop())
    await until('both', () => r.received.length === 2)
    // One message at a time per highlight, in the order of the changes (docs/webhooks.md#delivery).
    expect(r.received.map((got) => JSON.parse(got.body).type)).toEqual(['highlight.created', 'highlight.deleted'])
    for (const got of r.received) expect(JSON.parse(got.body).data).toEqual({ highlight: created })
    await until('settled', async () => (await highlightRows(h)).every((row) => row.status === 'delivered'))
  })
})
