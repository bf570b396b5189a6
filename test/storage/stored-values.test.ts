import { beforeAll, describe, expect, test } from 'bun:test'
import { createFolder } from '../../adapters/storage/folders.ts'
import { upsertCapture } from '../../adapters/storage/saved-items.ts'
import { uuidv7 } from '../../core/ids.ts'
import { prepareCapture } from '../../core/items/capture.ts'
import { CAPTURE_CHANNELS, ENRICHMENT_STATUSES, ITEM_TYPES, TAGS } from '../../core/types.ts'
import { createHarness, random, TEST_DRIVER, type Harness } from '../helpers/harness.ts'

// docs/api.md#data-rules: the database keeps every stored item inside the SavedItem response schema and every
// folder inside Folder (migration 0020's triggers), whoever writes; an update is checked on each group of columns
// it sets, so every group is written here. `npm test` runs this on every driver.

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
    await setItem('title', 'Ünïcode "quoted" \\ title')
    await setItem('title', null)
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
      // A number in a text column is stored as its text (the column's affinity): a blob is what stays outside.
      ['title', new Uint8Array([0x41])],
      ['original_url', null],
      ['preview_summary', new Uint8Array([1, 2])],
      ['last_saved_at', null],
      ['source_name', new Uint8Array([0x42])],
      ['folder_id', new Uint8Array([0x43])],
    ] as const)
      await expect(setItem(assignment, value), `${assignment} = ${String(value)}`).rejects.toThrow(REFUSED)
    const row = (await h.db.$client.execute({ sql: 'SELECT type, tags FROM saved_items WHERE id = ?', args: [itemId] }))
      .rows[0]!
    expect(row.type).toBe(ITEM_TYPES.at(-1)!)
    expect(JSON.parse(row.tags as string)).toEqual([])
  })

  test('an insert outside the schema is refused too, and a folder name must be text', async () => {
    await expect(
      h.db.$client.execute({
        sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status,
          is_read, last_saved_at, created_at, updated_at) VALUES (?, ?, 'https://x.example/', 'https://x.example/',
          'x.example', 'podcast', '[]', 'pending', 0, 'a', 'a', 'a')`,
        args: [uuidv7(h.clock.now().getTime(), random), userId],
      }),
    ).rejects.toThrow(REFUSED)
    await expect(
      h.db.$client.execute({ sql: "UPDATE folders SET name = X'01' WHERE id = ?", args: [folderId] }),
    ).rejects.toThrow(/folders: a value outside the API schema/)
    const name = (await h.db.$client.execute({ sql: 'SELECT name FROM folders WHERE id = ?', args: [folderId] }))
      .rows[0]!
    expect(name.name).toBe('Kept')
  })
})
