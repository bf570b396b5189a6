import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { csvExportChunks } from '../../../core/export/csv.ts'
import { neutralizeFormula, restoreFormula } from '../../../core/export/csv-formulas.ts'
import type { ExportItem } from '../../../core/export/export-item.ts'
import { parseImportFile } from '../../../core/import/parse-import.ts'
import { readlaterCsvEntries } from '../../../core/import/readlater.ts'
import type { RawEntry } from '../../../core/import/entry-rules.ts'
import { collect, EXPORTED_AT, exportItem, fromArray } from '../export/export-fixtures.ts'

// docs/import-export.md#export: our CSV export puts a `'` before any cell a spreadsheet would run as a
// formula; importing that file back removes it again, so export → import keeps every title and folder name.

const HEADER =
  'url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,type,description,site_name,source_name'

/** Values at every edge of the rule: each trigger, quotes before it, quotes before something else. */
const VALUES = [
  '=HYPERLINK("http://evil.example","x")',
  '=',
  '+1',
  '-10% off',
  '@handle',
  '\tTab first',
  '\r=CR first',
  '\n=LF first',
  "'=already quoted",
  "''=two quotes",
  "'''@three quotes",
  "'",
  "''",
  "'quoted'",
  "' =space between",
  ' =space first',
  'a=b',
  'Plain',
  '',
]

describe('neutralizeFormula() and restoreFormula()', () => {
  test('restoreFormula undoes neutralizeFormula for every value', () => {
    for (const value of VALUES) assert.equal(restoreFormula(neutralizeFormula(value)), value, JSON.stringify(value))
  })

  test('two values never neutralize to the same cell', () => {
    const cells = VALUES.map(neutralizeFormula)
    assert.equal(new Set(cells).size, VALUES.length)
  })

  test('a neutralized cell never starts with a trigger', () => {
    for (const value of VALUES) assert.doesNotMatch(neutralizeFormula(value), /^[=+\-@\t\r\n]/, JSON.stringify(value))
  })

  test('a cell the export did not prefix is read as it is', () => {
    for (const cell of ["'", "''", "'quoted'", "' =space between", 'Plain', 'a=b'])
      assert.equal(restoreFormula(cell), cell)
  })
})

describe('readlaterCsvEntries() removes the export’s leading quote', () => {
  test('from titles, folder names and tags, and only where the export put one', () => {
    const csv = [
      HEADER,
      `https://a.example/,"'=HYPERLINK(""http://evil.example"",""x"")",'+cmd,ai,false,2026-01-01T00:00:00.000Z,,,,,,`,
      `https://b.example/,''=two,''-folder,,true,2026-01-01T00:00:00.000Z,,,,,,`,
      `https://c.example/,'quoted',',,false,2026-01-01T00:00:00.000Z,,,,,,`,
      `https://d.example/,'@x,'' =kept,'-,false,2026-01-01T00:00:00.000Z,,,,,,`,
    ].join('\r\n')
    const entries = [...readlaterCsvEntries(csv)] as RawEntry[]
    assert.deepEqual(
      entries.map((entry) => [entry.title, entry.folder, entry.tags]),
      [
        ['=HYPERLINK("http://evil.example","x")', ['+cmd'], ['ai']],
        ["'=two", ["'-folder"], []],
        ["'quoted'", ["'"], []],
        ['@x', ["'' =kept"], ['-']],
      ],
    )
  })
})

describe('export → import keeps titles and folder names exactly', () => {
  test('every value at the edges of the rule', async () => {
    const values = VALUES.filter((value) => value.trim() === value && value !== '')
    const items: ExportItem[] = values.map((value, i) =>
      exportItem({
        id: `itm_${i}`,
        originalUrl: `https://example.com/${i}`,
        normalizedUrl: `https://example.com/${i}`,
        title: value,
        folder: { id: `fld_${i}`, name: value },
        tags: ['ai', 'security'],
      }),
    )
    const text = (await collect(csvExportChunks(fromArray(items), { exportedAt: EXPORTED_AT }))).join('')
    const parsed = parseImportFile(new TextEncoder().encode(text), { now: new Date(EXPORTED_AT) })
    assert.equal(parsed.format, 'readlater')
    const entries = [...parsed.entries].map((parsedEntry) => {
      assert.ok(parsedEntry.ok)
      return parsedEntry.entry
    })
    assert.deepEqual(
      entries.map((entry) => [entry.url, entry.title, entry.folder, entry.tags]),
      values.map((value, i) => [`https://example.com/${i}`, value, value, ['ai', 'security']]),
    )
  })
})
