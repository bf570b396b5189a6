import type { Harness } from '../helpers/harness.ts'
import type { RouteIds } from './endpoint-table.ts'
import { gif } from '../fixtures/images/images.ts'

const SEEDED_GIF = gif()

// People for the tests that go over every endpoint (test/http/endpoint-table.ts): one of each resource a
// path can name, and a snapshot of what they own.

/** Gives a person one saved item (with its article and a highlight), folder, import and webhook, through the API with a full-scope key. */
export async function seedPerson(harness: Harness, token: string, label: string): Promise<RouteIds> {
  const capture = await harness.call('POST', '/v1/captures', {
    token,
    body: { url: `https://example.com/${label}/item`, sourceName: `${label} source` },
  })
  if (capture.status !== 201) throw new Error(`seed capture failed: ${capture.status} ${capture.text}`)
  // The item's article, as enrichment would store it, so the content route has something to answer, and
  // an archived image of it (a 1 × 1 GIF) for the image route.
  await harness.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 3, '<p>Seeded article text</p>', 'Seeded article text', ?)",
    args: [capture.body.savedItem.id, capture.body.savedItem.createdAt],
  })
  await harness.db.$client.execute({
    sql: `INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
      SELECT id, 1, user_id, 'https://example.com/seeded.gif', 'image/gif', ?, ?, ? FROM saved_items WHERE id = ?`,
    args: [SEEDED_GIF.length, capture.body.savedItem.createdAt, SEEDED_GIF, capture.body.savedItem.id],
  })
  const highlight = await harness.call('POST', `/v1/saved-items/${capture.body.savedItem.id}/highlights`, {
    token,
    body: { quote: { exact: 'Seeded' }, note: `${label} note` },
  })
  if (highlight.status !== 201) throw new Error(`seed highlight failed: ${highlight.status} ${highlight.text}`)
  const folder = await harness.call('POST', '/v1/folders', { token, body: { name: `${label} folder` } })
  if (folder.status !== 200) throw new Error(`seed folder failed: ${folder.status} ${folder.text}`)
  const started = await harness.call('POST', '/v1/imports', {
    token,
    raw: `https://example.com/${label}/imported\n`,
    headers: { 'content-type': 'text/plain' },
  })
  if (started.status !== 202) throw new Error(`seed import failed: ${started.status} ${started.text}`)
  // A name that never resolves: the test route's attempt fails at DNS, at once, without leaving the machine.
  const webhook = await harness.call('POST', '/v1/webhooks', {
    token,
    body: { url: `https://hooks.example.invalid/${label}`, events: ['saved_item.created'] },
  })
  if (webhook.status !== 201) throw new Error(`seed webhook failed: ${webhook.status} ${webhook.text}`)
  return {
    itemId: capture.body.savedItem.id,
    folderId: folder.body.id,
    importId: started.body.import.id,
    webhookId: webhook.body.webhook.id,
    highlightId: highlight.body.highlight.id,
  }
}

/** Every row a person owns (items, folders, reading progress, highlights), for "nothing changed" assertions. */
export async function snapshotPerson(harness: Harness, userId: string): Promise<unknown> {
  const items = await harness.db.$client.execute({
    sql: 'SELECT * FROM saved_items WHERE user_id = ? ORDER BY id',
    args: [userId],
  })
  const folders = await harness.db.$client.execute({
    sql: 'SELECT * FROM folders WHERE user_id = ? ORDER BY id',
    args: [userId],
  })
  const progress = await harness.db.$client.execute({
    sql: 'SELECT p.* FROM reading_progress p JOIN saved_items i ON i.id = p.item_id WHERE i.user_id = ? ORDER BY p.item_id',
    args: [userId],
  })
  const highlights = await harness.db.$client.execute({
    sql: 'SELECT * FROM highlights WHERE user_id = ? ORDER BY id',
    args: [userId],
  })
  return {
    items: items.rows.map((row) => ({ ...row })),
    folders: folders.rows.map((row) => ({ ...row })),
    progress: progress.rows.map((row) => ({ ...row })),
    highlights: highlights.rows.map((row) => ({ ...row })),
  }
}
