import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { toSavedItemDto } from '../../../core/items/saved-item-dto.ts'
import type { ExportItem } from '../../../core/export/export-item.ts'
import { jsonExportChunks } from '../../../core/export/json.ts'
import type { SavedItem } from '../../../core/types.ts'
import { collect, EXPORTED_AT, exportItem, fromArray, HOSTILE_ITEM, THREE_ITEMS } from './export-fixtures.ts'

// docs/import-export.md#export: the JSON export is one JSON document, `savedItems` holding the API's items.

const exportJson = async (items: readonly ExportItem[]) =>
  (await collect(jsonExportChunks(fromArray(items), { exportedAt: EXPORTED_AT }))).join('')

describe('jsonExportChunks()', () => {
  test('an empty library is a valid document with no items', async () => {
    const text = await exportJson([])
    assert.equal(text, `{"format":"readlater","version":1,"exportedAt":"${EXPORTED_AT}","savedItems":[\n]}\n`)
    assert.deepEqual(JSON.parse(text), { format: 'readlater', version: 1, exportedAt: EXPORTED_AT, savedItems: [] })
  })

  test('writes a head, one chunk per item and a tail, exactly', async () => {
    const chunks = await collect(jsonExportChunks(fromArray(THREE_ITEMS), { exportedAt: EXPORTED_AT }))
    assert.deepEqual(chunks, [
      `{"format":"readlater","version":1,"exportedAt":"2026-11-25T10:04:05.123Z","savedItems":[`,
      '\n{"id":"itm_03","originalUrl":"https://example.com/typed?a=1&b=2","normalizedUrl":"https://example.com/typed?a=1&b=2","host":"example.com","title":"Typed streams","description":"How to stream a library","siteName":"Example","faviconUrl":null,"faviconLightUrl":null,"faviconDarkUrl":null,"imageUrl":null,"canonicalUrl":null,"previewSummary":null,"type":"article","tags":["typescript","tools"],"enrichmentStatus":"enriched","sourceName":null,"captureChannel":"api","folder":{"id":"fld_reading","name":"Reading"},"isRead":false,"lastSavedAt":"2026-11-24T18:30:15.500Z","createdAt":"2026-11-20T08:00:00.000Z","updatedAt":"2026-11-24T18:30:15.500Z"}',
      ',\n{"id":"itm_02","originalUrl":"https://video.example.org/watch?v=42","normalizedUrl":"https://video.example.org/watch?v=42","host":"video.example.org","title":null,"description":null,"siteName":null,"faviconUrl":null,"faviconLightUrl":null,"faviconDarkUrl":null,"imageUrl":null,"canonicalUrl":null,"previewSummary":null,"type":"video","tags":[],"enrichmentStatus":"failed","sourceName":null,"captureChannel":null,"folder":{"id":"fld_reading","name":"Reading"},"isRead":true,"lastSavedAt":"2026-11-23T21:45:59.999Z","createdAt":"2026-10-01T12:00:00.000Z","updatedAt":"2026-11-23T21:45:59.999Z"}',
      ',\n{"id":"itm_01","originalUrl":"https://example.com/posts/streams?utm_source=feed","normalizedUrl":"https://example.com/posts/streams","host":"example.com","title":"Plain","description":null,"siteName":"Example","faviconUrl":null,"faviconLightUrl":null,"faviconDarkUrl":null,"imageUrl":null,"canonicalUrl":null,"previewSummary":null,"type":"article","tags":["ai"],"enrichmentStatus":"enriched","sourceName":"Hacker News","captureChannel":"api","folder":null,"isRead":true,"lastSavedAt":"2026-11-02T09:15:00.000Z","createdAt":"2026-09-03T07:00:00.000Z","updatedAt":"2026-11-02T09:15:00.000Z"}',
      '\n]}\n',
    ])
    assert.deepEqual(JSON.parse(chunks.join('')).savedItems, THREE_ITEMS)
  })

  test('hostile text survives exactly', async () => {
    const parsed = JSON.parse(await exportJson([HOSTILE_ITEM, HOSTILE_ITEM]))
    assert.deepEqual(parsed.savedItems, [HOSTILE_ITEM, HOSTILE_ITEM])
  })

  test('a lone surrogate is escaped, so the document stays valid UTF-8', async () => {
    const text = await exportJson([exportItem({ title: 'half \ud83d of an emoji' })])
    assert.match(text, /"title":"half \\ud83d of an emoji"/)
    assert.equal(JSON.parse(text).savedItems[0].title, 'half \ud83d of an emoji')
  })

  test('writes the API fields in the API order, whatever object it is given', async () => {
    // The export is a page of the API: this fails when the API's saved item changes and the export does not.
    const stored: SavedItem = { ...THREE_ITEMS[0]!, userId: 'usr_secret', openedAt: '2026-11-24T19:00:00.000Z' }
    const dto: ExportItem = toSavedItemDto(stored)
    const shuffled = Object.fromEntries(Object.entries(stored).reverse()) as unknown as ExportItem
    const [item] = JSON.parse(await exportJson([shuffled])).savedItems
    assert.deepEqual(Object.keys(item), Object.keys(dto))
    assert.deepEqual(item, dto)
    assert.equal('userId' in item, false)
  })
})
