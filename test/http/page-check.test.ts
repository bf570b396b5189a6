import { describe, expect, test } from 'bun:test'
import { highlightPageSchemaFailure } from '../../adapters/http/page-check.ts'
import { ListedHighlight, SavedItem } from '../../adapters/http/schemas.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import type { SavedItem as StoredItem } from '../../core/types.ts'

// docs/benchmarks.md#the-uncached-list: a cached highlights page is checked against its response schema's value
// rules with `additionalProperties: false` left out, because every listed highlight is an object literal with
// exactly the schema's keys. These tests hold that premise (the literals' keys are the schemas' keys, in
// order: the saved item's too, whose JSON SQLite writes in the same order for the list) and show the check
// still refuses a value the schema refuses.

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
})
