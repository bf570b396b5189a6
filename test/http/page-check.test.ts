import { describe, expect, test } from 'bun:test'
import { highlightPageSchemaFailure, pageSchemaFailure } from '../../adapters/http/page-check.ts'
import { pageItems } from '../../adapters/app/saved-items.ts'
import { ListedHighlight, SavedItem } from '../../adapters/http/schemas.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import type { SavedItem as StoredItem } from '../../core/types.ts'

// docs/benchmarks.md#the-uncached-list: a listed page is checked against its response schema's value rules
// with `additionalProperties: false` left out, because every listed item is an object literal with exactly
// the schema's keys. These tests hold that premise (the literals' keys are the schemas' keys, in order) and
// show the check still refuses a value the schema refuses.

const ITEM: StoredItem = {
  id: '01900000-0000-7000-8000-000000000001',
  userId: 'u',
  originalUrl: 'https://example.com/a',
  normalizedUrl: 'https://example.com/a',
  host: 'example.com',
  title: 'A',
  description: null,
  siteName: null,
  faviconUrl: null,
  faviconLightUrl: null,
  faviconDarkUrl: null,
  imageUrl: null,
  canonicalUrl: null,
  previewSummary: null,
  type: 'article',
  tags: ['tools'],
  enrichmentStatus: 'enriched',
  sourceName: null,
  captureChannel: 'api',
  folder: { id: 'f', name: 'Folder' },
  isRead: false,
  openedAt: null,
  lastSavedAt: '2026-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}

const listed = (items: unknown[]) => ({
  json: '',
  page: { savedItems: items as never, nextCursor: null },
  nextCursor: null,
  verified: false,
})

describe('the listed pages’ schema check', () => {
  test('a saved item’s wire shape has exactly the schema’s keys, in its order', () => {
    expect(Object.keys(toSavedItemDto(ITEM))).toEqual(Object.keys(SavedItem.properties))
  })

  test('a listed highlight’s wire shape has exactly the schema’s keys, in its order', () => {
    const dto = {
      ...toHighlightDto({
        id: 'h',
        savedItemId: ITEM.id,
        quote: { exact: 'x', prefix: '', suffix: '' },
        position: { start: 0, end: 1 },
        color: 'yellow',
        note: null,
        createdAt: ITEM.createdAt,
        updatedAt: ITEM.updatedAt,
      }),
      savedItem: { id: ITEM.id, title: null, normalizedUrl: ITEM.normalizedUrl },
    }
    expect(Object.keys(dto)).toEqual(Object.keys(ListedHighlight.properties))
    const page = { page: { highlights: [dto] as never, nextCursor: null }, json: new Uint8Array(), verified: false }
    expect(highlightPageSchemaFailure(page)).toBeNull()
    expect(page.verified).toBe(true)
    const bad = {
      ...page,
      page: { highlights: [{ ...dto, color: 'plaid' }] as never, nextCursor: null },
      verified: false,
    }
    expect(highlightPageSchemaFailure(bad)).toStartWith('response.highlights.0.color')
  })

  test('a page of valid items passes once and is marked; a value the schema refuses is named by its path', () => {
    const good = listed([toSavedItemDto(ITEM), toSavedItemDto({ ...ITEM, folder: null, captureChannel: null })])
    expect(pageSchemaFailure(good)).toBeNull()
    expect(good.verified).toBe(true)
    expect(pageSchemaFailure(listed([toSavedItemDto(ITEM), { ...toSavedItemDto(ITEM), type: 'bogus' }]))).toStartWith(
      'response.savedItems.1.type',
    )
    expect(pageSchemaFailure(listed([{ ...toSavedItemDto(ITEM), tags: ['no-such-tag'] }]))).toStartWith(
      'response.savedItems.0.tags',
    )
    expect(pageSchemaFailure(listed([{ ...toSavedItemDto(ITEM), isRead: 1 }]))).toStartWith(
      'response.savedItems.0.isRead',
    )
    // A page read as SQLite's JSON has no objects to walk; once they are made from it (for MCP), they are
    // checked like any other.
    const fromJson = {
      json: JSON.stringify({ savedItems: [{ ...toSavedItemDto(ITEM), type: 'bogus' }] }),
      page: null,
      nextCursor: null,
      verified: false,
    }
    expect(pageSchemaFailure(fromJson)).toBeNull()
    expect(fromJson.verified).toBe(false)
    const items = pageItems(fromJson)
    expect(items.savedItems).toHaveLength(1)
    expect(pageItems(fromJson)).toBe(items)
    expect(pageSchemaFailure(fromJson)).toStartWith('response.savedItems.0.type')
    // Nested objects stay closed: a folder with a stray field is refused.
    expect(
      pageSchemaFailure(listed([{ ...toSavedItemDto(ITEM), folder: { id: 'f', name: 'F', secret: 1 } }])),
    ).toStartWith('response.savedItems.0.folder')
  })
})
