import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readImportDate, type RawDate } from '../../../core/import/dates.ts'
import {
  appendFolderPart,
  checkEntry,
  cleanTitle,
  IMPORT_MAX_TITLE_LENGTH,
  joinFolderPath,
} from '../../../core/import/entry-rules.ts'
import { sortTags, splitBookmarkTags, splitJsonTags } from '../../../core/import/tags.ts'
import { MAX_URL_LENGTH } from '../../../core/url/normalize-url.ts'

// docs/import-export.md#entry-rules: the rules every format's entries go through.

const NOW = new Date('2025-06-01T00:00:00.000Z')

const dates: readonly [raw: RawDate, expected: string | null][] = [
  [1600000000, '2020-09-13T12:26:40.000Z'],
  ['1600000000', '2020-09-13T12:26:40.000Z'],
  [' 1600000000 ', '2020-09-13T12:26:40.000Z'],
  ['1600000000.75', '2020-09-13T12:26:40.750Z'],
  ['1600000000123', '2020-09-13T12:26:40.123Z'],
  [1600000000123, '2020-09-13T12:26:40.123Z'],
  ['1600000000123456', '2020-09-13T12:26:40.123Z'],
  ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
  ['2024-01-02T03:04:05.000Z', '2024-01-02T03:04:05.000Z'],
  ['2024-01-02T03:04:05+01:00', '2024-01-02T02:04:05.000Z'],
  ['2016-09-08T11:55:58+0200', '2016-09-08T09:55:58.000Z'],
  ['2024-01-02T03:04:05-0530', '2024-01-02T08:34:05.000Z'],
  ['2024-01-02T03:04:05+01', '2024-01-02T02:04:05.000Z'],
  ['2026-03-14 23:55:23.291000+00:00', '2025-06-01T00:00:00.000Z'],
  ['2024-03-14 23:55:23.291000+00:00', '2024-03-14T23:55:23.291Z'],
  ['2024-01-02T03:04', '2024-01-02T03:04:00.000Z'],
  ['2024-01-02', '2024-01-02T00:00:00.000Z'],
  ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ['Tue, 02 Jan 2024 03:04:05 +0100', '2024-01-02T02:04:05.000Z'],
  ['Tue, 2 Jan 2024 03:04:05 GMT', '2024-01-02T03:04:05.000Z'],
  ['2 Jan 2024 03:04 EST', '2024-01-02T08:04:00.000Z'],
  ['02 jan 24 03:04:05 Z', '2024-01-02T03:04:05.000Z'],
  ['Mon, 17 Jul 23 14:31:25 +0200', '2023-07-17T12:31:25.000Z'],
  ['1990-01-01T00:00:00Z', '1990-01-01T00:00:00.000Z'],
  // 23:00 at UTC-1 on the last day of 1989 is already 1990 in UTC.
  ['Sun, 31 Dec 1989 23:00:00 -0100', '1990-01-01T00:00:00.000Z'],
  // Never in the future: clamped to the import's time.
  [1900000000, '2025-06-01T00:00:00.000Z'],
  ['2099-12-31T23:59:59Z', '2025-06-01T00:00:00.000Z'],
  ['9999999999999999', '2025-06-01T00:00:00.000Z'],
  // Missing.
  [null, null],
  [undefined, null],
  ['', null],
  ['   ', null],
]

describe('readImportDate() reads the dates exports write', () => {
  for (const [raw, expected] of dates) {
    test(JSON.stringify(raw) ?? 'undefined', () => {
      assert.deepEqual(readImportDate(raw, NOW), { ok: true, timestamp: expected })
    })
  }
})

const badDates: readonly [raw: RawDate, problem: string][] = [
  ['0', '"0" (1970-01-01T00:00:00.000Z) is before 1990'],
  [0, '"0" (1970-01-01T00:00:00.000Z) is before 1990'],
  ['-868878000', '"-868878000" (1942-06-20T13:00:00.000Z) is before 1990'],
  ['1989-12-31T23:59:59Z', '"1989-12-31T23:59:59Z" (1989-12-31T23:59:59.000Z) is before 1990'],
  ['yesterday', '"yesterday" cannot be read as a date'],
  ['12/31/2020', '"12/31/2020" cannot be read as a date'],
  ['2024-02-30', '"2024-02-30" cannot be read as a date'],
  ['2023-02-29', '"2023-02-29" cannot be read as a date'],
  ['2024-13-01', '"2024-13-01" cannot be read as a date'],
  ['2024-01-02T25:00:00Z', '"2024-01-02T25:00:00Z" cannot be read as a date'],
  ['2024-01-02T03:04:05+25:00', '"2024-01-02T03:04:05+25:00" cannot be read as a date'],
  ['Tue, 02 Foo 2024 03:04:05 GMT', '"Tue, 02 Foo 2024 03:04:05 GMT" cannot be read as a date'],
  ['2 Jan 2024 03:04 XYZ', '"2 Jan 2024 03:04 XYZ" cannot be read as a date'],
  [Number.NaN, '"NaN" cannot be read as a date'],
  ['x'.repeat(300), `"${'x'.repeat(100)}…" cannot be read as a date`],
]

describe('readImportDate() refuses dates it cannot trust', () => {
  for (const [raw, problem] of badDates) {
    test(JSON.stringify(raw).slice(0, 60), () => {
      assert.deepEqual(readImportDate(raw, NOW), { ok: false, problem })
    })
  }
})

const tags: readonly [written: string[], kept: string[], dropped: string[]][] = [
  [['AI', 'ai', ' Ai '], ['ai'], []],
  [['TypeScript', 'typescript'], ['typescript'], []],
  [['frontend', 'Front End', 'front_end', 'FRONT-END', 'front - end'], ['front-end'], []],
  [['back_end', 'Backend'], ['backend'], []],
  [['Security', 'tools', 'Design'], ['security', 'tools', 'design'], []],
  [['javascript', 'JavaScript', 'react'], [], ['javascript', 'react']],
  [['  ', '', 'self-hosting '], [], ['self-hosting']],
  [['machine learning', 'ai', 'Machine Learning'], ['ai'], ['machine learning']],
]

describe('sortTags() keeps tag values and reports the rest', () => {
  for (const [written, kept, dropped] of tags) {
    test(JSON.stringify(written), () => {
      assert.deepEqual(sortTags(written), { tags: kept, droppedTags: dropped })
    })
  }
})

describe('tag lists as files write them', () => {
  const bookmarkTags: readonly [attribute: string | undefined, names: string[]][] = [
    [undefined, []],
    ['', []],
    ['a,b , c', ['a', 'b ', ' c']],
    ['Read Later,books', ['Read Later', 'books']],
    ['Front End', ['Front End']],
    ['ai tools', ['ai', 'tools']],
    ['windows-dev  tools', ['windows-dev', 'tools']],
  ]
  for (const [attribute, names] of bookmarkTags) {
    test(`TAGS=${JSON.stringify(attribute)}`, () => assert.deepEqual(splitBookmarkTags(attribute), names))
  }
  const jsonTags: readonly [cell: string | undefined, names: string[]][] = [
    [undefined, []],
    ['', []],
    ['[]', []],
    ['["react","javascript"]', ['react', 'javascript']],
    ['[1, "ai", null]', ['ai']],
    ['[react, "tools"]', ['react', 'tools']],
  ]
  for (const [cell, names] of jsonTags) {
    test(`Tags=${JSON.stringify(cell)}`, () => assert.deepEqual(splitJsonTags(cell), names))
  }
})

const titles: readonly [written: string | null | undefined, expected: string | null][] = [
  ['  A title  ', 'A title'],
  ['A\n  multi-line\r\n\ttitle', 'A multi-line title'],
  ['Tab\u0000and\u0007bell', 'Tabandbell'],
  ['', null],
  ['   \n ', null],
  [null, null],
  [undefined, null],
  ['Entities are &amp; stay as written outside HTML', 'Entities are &amp; stay as written outside HTML'],
  ['é'.repeat(IMPORT_MAX_TITLE_LENGTH + 5), 'é'.repeat(IMPORT_MAX_TITLE_LENGTH)],
  ['😀'.repeat(IMPORT_MAX_TITLE_LENGTH + 1), '😀'.repeat(IMPORT_MAX_TITLE_LENGTH)],
  [`${'a'.repeat(IMPORT_MAX_TITLE_LENGTH - 1)} b`, 'a'.repeat(IMPORT_MAX_TITLE_LENGTH - 1)],
]

describe('cleanTitle()', () => {
  for (const [written, expected] of titles) {
    test(JSON.stringify(written)?.slice(0, 60) ?? 'undefined', () => assert.equal(cleanTitle(written), expected))
  }
})

const long = (letter: string, length: number) => letter.repeat(length)

const folders: readonly [parts: string[], expected: string | null][] = [
  [[], null],
  [['Reading'], 'Reading'],
  [['  Bookmarks bar ', 'Dev', ''], 'Bookmarks bar / Dev'],
  [['', ' ', '\t'], null],
  [['A\n  B', 'C'], 'A B / C'],
  [['Cafe\u0301'], 'Café'],
  [[long('a', 120)], long('a', 100)],
  // Cut at 100 code points without a trailing space or half a separator.
  [[long('a', 97), 'b'], long('a', 97)],
  [[long('a', 98), 'b'], long('a', 98)],
  [[long('a', 96), 'bcdef'], `${long('a', 96)} / b`],
  [[`${long('a', 99)} xy`], long('a', 99)],
  [[long('😀', 101)], long('😀', 100)],
  // A name the folder code would refuse is dropped rather than failing the entry.
  [['Bad\u0000name'], null],
  [['Ok', 'next\u0085line'], null],
  // A line separator is whitespace, like a line break.
  [['line\u2028separator'], 'line separator'],
]

describe('joinFolderPath() and appendFolderPart()', () => {
  for (const [parts, expected] of folders) {
    test(JSON.stringify(parts).slice(0, 60), () => {
      const entry = checkEntry({ line: 1, url: 'https://a.example/', isRead: false, folder: parts }, new Date())
      assert.ok(entry.ok)
      assert.equal(entry.entry.folder, expected)
    })
  }

  test('building a path a level at a time gives what joining it whole gives', () => {
    const parts = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? ` Folder ${i}  ` : `F${i}`))
    let path: string | null = null
    for (const part of parts) path = appendFolderPart(path, part)
    assert.equal(path, joinFolderPath(parts))
    assert.equal([...(path ?? '')].length, 100)
  })
})

const longUrl = `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`

const urls: readonly [url: string | null | undefined, message: string | null][] = [
  ['https://example.com/a', null],
  ['  https://example.com/a  ', null],
  ['HTTP://EXAMPLE.COM/', null],
  [null, 'the entry has no URL'],
  [undefined, 'the entry has no URL'],
  ['   ', 'the entry has no URL'],
  ['javascript:alert(1)', 'the URL "javascript:alert(1)" cannot be saved: scheme "javascript:" is not http or https'],
  ['/relative/page', 'the URL "/relative/page" cannot be saved: it is not an absolute URL'],
  ['example.com/page', 'the URL "example.com/page" cannot be saved: it is not an absolute URL'],
  ['ftp://example.com/file', 'the URL "ftp://example.com/file" cannot be saved: scheme "ftp:" is not http or https'],
  [
    'https://user:pw@example.com/',
    'the URL "https://user:pw@example.com/" cannot be saved: it contains a user name or password',
  ],
  [
    longUrl,
    `the URL "${longUrl.slice(0, 100)}…" cannot be saved: it is ${longUrl.length} characters long, the limit is ${MAX_URL_LENGTH}`,
  ],
  [`/${'b'.repeat(300)}`, `the URL "/${'b'.repeat(99)}…" cannot be saved: it is not an absolute URL`],
]

describe('checkEntry() checks the URL', () => {
  for (const [url, message] of urls) {
    test(JSON.stringify(url)?.slice(0, 60) ?? 'undefined', () => {
      const checked = checkEntry({ line: 7, url, isRead: false }, NOW)
      if (message === null) {
        assert.ok(checked.ok)
        assert.equal(checked.entry.url, url?.trim())
      } else {
        assert.deepEqual(checked, { ok: false, error: { line: 7, message } })
      }
    })
  }
})

describe('checkEntry()', () => {
  test('reports every problem of an entry, prefixed with where it is', () => {
    const checked = checkEntry(
      {
        line: 12,
        where: 'part_000001.csv line 3',
        url: 'javascript:void(0)',
        savedAt: { value: 'soon', field: 'time_added' },
        lastSavedAt: { value: '1980-01-01', field: 'last_saved_at' },
        isRead: false,
      },
      NOW,
    )
    assert.deepEqual(checked, {
      ok: false,
      error: {
        line: 12,
        message:
          'part_000001.csv line 3: the URL "javascript:void(0)" cannot be saved: scheme "javascript:" is not http or https; ' +
          'time_added "soon" cannot be read as a date; ' +
          'last_saved_at "1980-01-01" (1980-01-01T00:00:00.000Z) is before 1990',
      },
    })
  })

  test('keeps the URL as written (trimmed), not normalized', () => {
    const checked = checkEntry({ line: 1, url: ' https://WWW.Example.com/a/?utm_source=x ', isRead: true }, NOW)
    assert.deepEqual(checked, {
      ok: true,
      entry: {
        line: 1,
        url: 'https://WWW.Example.com/a/?utm_source=x',
        title: null,
        savedAt: null,
        lastSavedAt: null,
        isRead: true,
        folder: null,
        tags: [],
        droppedTags: [],
        highlights: [],
        highlightProblem: null,
        page: null,
      },
    })
  })
})
