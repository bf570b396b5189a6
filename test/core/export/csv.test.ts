import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parse } from 'csv-parse/sync'
import { CSV_COLUMNS, csvExportChunks, csvField } from '../../../core/export/csv.ts'
import type { ExportItem } from '../../../core/export/export-item.ts'
import { collect, EXPORTED_AT, exportItem, fromArray, HOSTILE, HOSTILE_ITEM, THREE_ITEMS } from './export-fixtures.ts'

// docs/import-export.md#export: the CSV export is RFC 4180, UTF-8 without a BOM, values exactly as stored but
// for a leading `'` on any cell a spreadsheet would run as a formula, which our import removes again.

const HEADER =
  'url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,type,description,site_name,source_name,id,host,preview_summary,image_url,canonical_url,favicon_url,favicon_light_url,favicon_dark_url,enrichment_status,capture_channel,updated_at\r\n'

const exportCsv = async (items: readonly ExportItem[]) =>
  (await collect(csvExportChunks(fromArray(items), { exportedAt: EXPORTED_AT }))).join('')

const fields: readonly [value: string | null, expected: string][] = [
  [null, ''],
  ['', ''],
  ['plain text', 'plain text'],
  ['a,b', '"a,b"'],
  ['say "hi"', '"say ""hi"""'],
  ['"', '""""'],
  ['line\nbreak', '"line\nbreak"'],
  ['carriage\rreturn', '"carriage\rreturn"'],
  [' padded ', ' padded '],
  ['semi;colon|pipe\ttab', 'semi;colon|pipe\ttab'],
  ["'quoted'", "'quoted'"],
  ["'", "'"],
  ["''", "''"],
  ['日本語 🎉', '日本語 🎉'],
  ['a=b', 'a=b'],
  ['10 - 2', '10 - 2'],
  // A cell a spreadsheet would run as a formula gets a leading ' (OWASP's advice against CSV injection).
  ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
  ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
  ['-10% off', "'-10% off"],
  ['+1', "'+1"],
  ['@handle', "'@handle"],
  ['=', "'="],
  ['\tTab first', "'\tTab first"],
  ['\r=1+1', `"'\r=1+1"`],
  ['\n=1+1', `"'\n=1+1"`],
  // Quotes before such a start get one more, so the import can tell what was added.
  ["'=already quoted", "''=already quoted"],
  ["''-two quotes", "'''-two quotes"],
  ["' =space between", "' =space between"],
]

describe('csvField() neutralizes formulas and quotes as RFC 4180 asks, and only then', () => {
  for (const [value, expected] of fields) {
    test(JSON.stringify(value), () => {
      assert.equal(csvField(value), expected)
    })
  }
})

describe('csvExportChunks()', () => {
  test('an empty library is the header alone, with no BOM', async () => {
    const text = await exportCsv([])
    assert.equal(text, HEADER)
    assert.equal(text.charCodeAt(0), 'u'.charCodeAt(0))
    assert.deepEqual(parse(text), [[...CSV_COLUMNS]])
  })

  test('writes the header and one record per chunk, exactly', async () => {
    const chunks = await collect(csvExportChunks(fromArray(THREE_ITEMS), { exportedAt: EXPORTED_AT }))
    assert.deepEqual(chunks, [
      HEADER,
      'https://example.com/typed?a=1&b=2,Typed streams,Reading,typescript|tools,false,2026-11-20T08:00:00.000Z,2026-11-24T18:30:15.500Z,https://example.com/typed?a=1&b=2,article,How to stream a library,Example,,itm_03,example.com,,,,,,,enriched,api,2026-11-24T18:30:15.500Z\r\n',
      'https://video.example.org/watch?v=42,,Reading,,true,2026-10-01T12:00:00.000Z,2026-11-23T21:45:59.999Z,https://video.example.org/watch?v=42,video,,,,itm_02,video.example.org,,,,,,,failed,,2026-11-23T21:45:59.999Z\r\n',
      'https://example.com/posts/streams?utm_source=feed,Plain,,ai,true,2026-09-03T07:00:00.000Z,2026-11-02T09:15:00.000Z,https://example.com/posts/streams,article,,Example,Hacker News,itm_01,example.com,,,,,,,enriched,api,2026-11-02T09:15:00.000Z\r\n',
    ])
  })

  test('hostile text survives exactly when parsed back', async () => {
    const text = await exportCsv([HOSTILE_ITEM, exportItem({ title: HOSTILE.repeat(2) })])
    const [header, hostile, second, ...rest] = parse(text) as string[][]
    assert.deepEqual(header, [...CSV_COLUMNS])
    assert.deepEqual(hostile, [
      HOSTILE_ITEM.originalUrl,
      HOSTILE,
      `Tom & "Jerry's" <Folder>, 🎉`,
      'front-end|security',
      'false',
      HOSTILE_ITEM.createdAt,
      HOSTILE_ITEM.lastSavedAt,
      HOSTILE_ITEM.normalizedUrl,
      'article',
      `${HOSTILE}  `,
      HOSTILE,
      `'=HYPERLINK("https://evil.example","x")`,
      'itm_hostile',
      'example.com',
      '',
      '',
      '',
      '',
      '',
      '',
      'enriched',
      'api',
      HOSTILE_ITEM.updatedAt,
    ])
    assert.equal(second![1], HOSTILE.repeat(2))
    assert.deepEqual(rest, [])
  })

  test('no cell of the file starts as a formula: titles, folder names, descriptions, site and source names', async () => {
    const planted = '=HYPERLINK("https://evil.example","x")'
    const text = await exportCsv([
      exportItem({
        title: planted,
        folder: { id: 'fld_f', name: '+cmd|calc' },
        description: '-2+3',
        siteName: '@SUM(1)',
        sourceName: '\t=1+1',
      }),
    ])
    const [, record] = parse(text) as string[][]
    assert.deepEqual(record!.slice(1, 3), [`'${planted}`, "'+cmd|calc"])
    assert.deepEqual(record!.slice(9, 12), ["'-2+3", "'@SUM(1)", "'\t=1+1"])
    for (const cell of record!) assert.doesNotMatch(cell, /^[=+\-@\t\r\n]/)
  })

  test('every field of the API item has its column, with its value (the folder by name)', async () => {
    const item = exportItem({
      previewSummary: 'A summary',
      imageUrl: 'https://cdn.example/i.png',
      canonicalUrl: 'https://example.com/canonical',
      faviconUrl: 'https://example.com/f.ico',
      faviconLightUrl: 'https://example.com/light.png',
      faviconDarkUrl: 'https://example.com/dark.png',
      sourceName: 'Source',
      siteName: 'Site',
      description: 'Described',
      folder: { id: 'fld_1', name: 'Reading' },
    })
    const [header, record] = parse(await exportCsv([item])) as string[][]
    const cell = (column: string) => record![header!.indexOf(column)]
    const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    for (const [key, value] of Object.entries(item)) {
      if (key === 'highlights') continue
      const column = key === 'originalUrl' ? 'url' : snake(key)
      const expected =
        key === 'folder'
          ? 'Reading'
          : key === 'tags'
            ? (value as string[]).join('|')
            : value === null
              ? ''
              : String(value)
      assert.equal(cell(column), expected, `${key} as ${column}`)
    }
  })

  test('every record ends in CRLF, and a line break inside a value is kept as it is', async () => {
    const text = await exportCsv([exportItem({ title: 'one\ntwo' })])
    assert.ok(text.endsWith('\r\n'))
    assert.ok(text.includes(',"one\ntwo",'))
  })
})
