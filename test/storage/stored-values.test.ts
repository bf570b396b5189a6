import { beforeAll, describe, expect, test } from 'bun:test'
import { createFolder } from '../../adapters/storage/folders.ts'
import { upsertCapture } from '../../adapters/storage/saved-items.ts'
import { uuidv7 } from '../../core/ids.ts'
import { prepareCapture } from '../../core/items/capture.ts'
import { CAPTURE_CHANNELS, ENRICHMENT_STATUSES, ITEM_TYPES, TAGS } from '../../core/types.ts'
import { createHarness, random, TEST_DRIVER, type Harness } from '../helpers/harness.ts'

// docs/api.md#data-rules: the database keeps every stored item's listed values inside the SavedItem response
// schema (migration 0020's triggers), whoever writes; an update is checked on the columns it sets, so each is
// written here. `npm test` runs this on every driver.

let h: Harness
let userId: string
let itemId: string
let folderId: string
const REFUSED = /a value outside the API schema/

beforeAll(async () => {
  h = await createHarness()
  userId = (await h.user()).id
  const prepared = prepareCapture(
    { url: 'https://example.com/stored-values' },
    { id: uuidv7(h.clock.now().getTime(), random), userId, now: h.clock.now(), connectClient: null },
  )
  itemId = (await upsertCapture(h.db, prepared)).item.id
  folderId = uuidv7(h.clock.now().getTime(), random)
  await createFolder(h.db, { id: folderId, userId, name: 'Kept', nameKey: 'kept', now: h.clock.now().toISOString() })
})

const setItem = (assignment: string, value: unknown) =>
  h.db.$client.execute({ sql: `UPDATE saved_items SET ${assignment} = ? WHERE id = ?`, args: [value as never, itemId] })

describe(`stored values on ${TEST_DRIVER}`, () => {
  test('every listed value of type, enrichmentStatus, captureChannel and tags is accepted', async () => {
    for (const value of ITEM_TYPES) await setItem('type', value)
    for (const value of ENRICHMENT_STATUSES) await setItem('enrichment_status', value)
    for (const value of [...CAPTURE_CHANNELS, null]) await setItem('capture_channel', value)
    await setItem('tags', JSON.stringify([...TAGS]))
    await setItem('tags', '[]')
    for (const value of [0, 1]) await setItem('is_read', value)
    await setItem('folder_id', folderId)
    const row = (
      await h.db.$client.execute({ sql: 'SELECT type, folder_id FROM saved_items WHERE id = ?', args: [itemId] })
    ).rows[0]!
    expect(row.type).toBe(ITEM_TYPES.at(-1)!)
    expect(row.folder_id).toBe(folderId)
  })

  test('a value outside the schema is refused, and the row keeps its value', async () => {
    for (const [assignment, value] of [
      ['type', 'hologram'],
      ['enrichment_status', 'done'],
      ['capture_channel', 'carrier-pigeon'],
      ['tags', '["ai","no-such-tag"]'],
      ['tags', '[1]'],
      ['tags', '{"ai":true}'],
      ['tags', 'not json'],
      ['is_read', 2],
      ['is_read', 'yes'],
    ] as const)
      await expect(setItem(assignment, value), `${assignment} = ${String(value)}`).rejects.toThrow(REFUSED)
    const row = (await h.db.$client.execute({ sql: 'SELECT type, tags FROM saved_items WHERE id = ?', args: [itemId] }))
      .rows[0]!
    expect(row.type).toBe(ITEM_TYPES.at(-1)!)
    expect(JSON.parse(row.tags as string)).toEqual([])
  })

  test('an insert outside the schema is refused too; a number in a text column is stored as its text', async () => {
    await expect(
      h.db.$client.execute({
        sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status,
          is_read, last_saved_at, created_at, updated_at) VALUES (?, ?, 'https://x.example/', 'https://x.example/',
          'x.example', 'podcast', '[]', 'pending', 0, 'a', 'a', 'a')`,
        args: [uuidv7(h.clock.now().getTime(), random), userId],
      }),
    ).rejects.toThrow(REFUSED)
    // A text column keeps a number as its text (its affinity): nothing outside the schema is stored.
    await h.db.$client.execute({ sql: 'UPDATE saved_items SET title = 42 WHERE id = ?', args: [itemId] })
    const title = (
      await h.db.$client.execute({ sql: 'SELECT typeof(title) AS t FROM saved_items WHERE id = ?', args: [itemId] })
    ).rows[0]!
    expect(title.t).toBe('text')
  })
})
