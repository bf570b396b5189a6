import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parse } from 'csv-parse/sync'
import { csvExportChunks } from '../../../core/export/csv.ts'
import {
  EXPORT_FORMATS,
  exportChunks,
  exportFile,
  LIBRARY_FORMATS,
  type LibraryFormat,
} from '../../../core/export/export.ts'
import { jsonExportChunks } from '../../../core/export/json.ts'
import { netscapeExportChunks } from '../../../core/export/netscape.ts'
import {
  collect,
  EXPORTED_AT,
  endlessSource,
  fromArray,
  numberedItem,
  pagedSource,
  readBookmarks,
  THREE_ITEMS,
} from './export-fixtures.ts'

// docs/import-export.md#export: the library streams out page by page, never held whole.

const files: readonly [format: LibraryFormat, filename: string, contentType: string][] = [
  ['json', 'readlater-export-2026-11-25.json', 'application/json; charset=utf-8'],
  ['netscape', 'readlater-export-2026-11-25.html', 'text/html; charset=utf-8'],
  ['csv', 'readlater-export-2026-11-25.csv', 'text/csv; charset=utf-8'],
  ['markdown', 'readlater-highlights-2026-11-25.zip', 'application/zip'],
]

/** The formats written as text, one chunk per item (markdown.test.ts tests the zip of highlights). */
type TextFormat = Exclude<LibraryFormat, 'markdown'>
const TEXT_FORMATS = LIBRARY_FORMATS.filter((format): format is TextFormat => format !== 'markdown')

/** How many items a chunk holds, counted by what each format writes once per item. */
const ITEMS_IN: Record<TextFormat, (chunk: string) => number> = {
  json: (chunk) => chunk.split('"originalUrl":').length - 1,
  netscape: (chunk) => chunk.split('<DT><A ').length - 1,
  // One record is one line here: these items hold no line breaks.
  csv: (chunk) => chunk.split('\r\n').length - 1,
}

/** The URL of every item of a whole file, as its format's reader reads them back. */
const READ_BACK: Record<TextFormat, (text: string) => string[]> = {
  json: (text) => JSON.parse(text).savedItems.map((item: { originalUrl: string }) => item.originalUrl),
  netscape: (text) => readBookmarks(text).bookmarks.map((bookmark) => bookmark.href),
  csv: (text) => (parse(text, { columns: true }) as { url: string }[]).map((record) => record.url),
}

describe('exportFile()', () => {
  for (const [format, filename, contentType] of files) {
    test(format, () => {
      assert.deepEqual(exportFile(format, { exportedAt: EXPORTED_AT }), { filename, contentType })
    })
  }
  test('dates the file with the UTC day of the export', () => {
    assert.equal(
      exportFile('csv', { exportedAt: '2026-12-31T23:59:59.999Z' }).filename,
      'readlater-export-2026-12-31.csv',
    )
  })
  test('refuses an export time that is not a date', () => {
    assert.throws(() => exportFile('json', { exportedAt: 'now' }), RangeError)
  })
})

describe('exportChunks()', () => {
  test('knows every format', () => {
    assert.deepEqual(LIBRARY_FORMATS, ['json', 'netscape', 'csv', 'markdown'])
    // The book is made apart (core/export/epub), from articles rather than items (epub.test.ts).
    assert.deepEqual(EXPORT_FORMATS, ['json', 'netscape', 'csv', 'markdown', 'epub'])
  })

  const serializers = { json: jsonExportChunks, netscape: netscapeExportChunks, csv: csvExportChunks }
  for (const format of TEXT_FORMATS) {
    test(`${format}: the same chunks as its serializer`, async () => {
      const context = { exportedAt: EXPORTED_AT }
      assert.deepEqual(
        await collect(exportChunks(format, fromArray(THREE_ITEMS), context)),
        await collect(serializers[format](fromArray(THREE_ITEMS), context)),
      )
    })

    // The timeout turns a serializer that reads ahead of its reader (and so never stops here) into a failure.
    test(`${format}: lazy, an endless library gives its first chunks and stops when the reader stops`, {
      timeout: 5000,
    }, async () => {
      const source = endlessSource()
      const chunks = exportChunks(format, source.items, { exportedAt: EXPORTED_AT })
      const head = await chunks.next()
      assert.equal(head.done, false)
      assert.equal(source.pulled(), 0, 'the head is written before any item is read')
      for (let taken = 1; taken <= 5; taken++) {
        const chunk = await chunks.next()
        assert.equal(chunk.done, false)
        assert.equal(source.pulled(), taken, 'one item read per chunk, none ahead')
        assert.ok((chunk.value as string).includes(`https://example.com/items/${taken - 1}`))
      }
      assert.deepEqual(await chunks.return(), { done: true, value: undefined })
      assert.equal(source.closed(), true, 'the source is closed, so a database cursor is released')
      assert.equal(source.pulled(), 5)
    })

    test(`${format}: 10,000 items stream one item per chunk, read page by page as the chunks are taken`, async () => {
      const count = 10_000
      const source = pagedSource(count)
      let taken = 0
      let text = ''
      for await (const chunk of exportChunks(format, source.items, { exportedAt: EXPORTED_AT })) {
        assert.ok(typeof chunk === 'string' && ITEMS_IN[format](chunk) <= 1, `chunk ${taken} holds more than one item`)
        assert.ok(source.pulled() <= taken, `chunk ${taken}: ${source.pulled()} items read ahead`)
        taken++
        text += chunk
      }
      // A head and one chunk per item, and a tail unless the format has none (CSV).
      assert.equal(taken, count + (format === 'csv' ? 1 : 2))
      assert.deepEqual(
        READ_BACK[format](text),
        Array.from({ length: count }, (_, index) => numberedItem(index).originalUrl),
      )
    })
  }
})
