import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { openCsv, readCsv } from '../../../core/import/csv.ts'
import { parseImportFile } from '../../../core/import/parse-import.ts'
import { ImportFormatError } from '../../../core/import/types.ts'

// docs/import-export.md#formats: CSV as the exports write it, and where each record starts.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const HEADER = 'title,url,time_added,tags,status'

const tables: readonly [name: string, text: string, rows: { line: number; cells: string[] }[]][] = [
  [
    'LF',
    'a,b\n1,2\n3,4\n',
    [
      { line: 2, cells: ['1', '2'] },
      { line: 3, cells: ['3', '4'] },
    ],
  ],
  [
    'CRLF',
    'a,b\r\n1,2\r\n3,4\r\n',
    [
      { line: 2, cells: ['1', '2'] },
      { line: 3, cells: ['3', '4'] },
    ],
  ],
  [
    'CR only',
    'a,b\r1,2\r3,4',
    [
      { line: 2, cells: ['1', '2'] },
      { line: 3, cells: ['3', '4'] },
    ],
  ],
  [
    'mixed line ends',
    'a,b\n1,2\r\n3,4\n',
    [
      { line: 2, cells: ['1', '2'] },
      { line: 3, cells: ['3', '4'] },
    ],
  ],
  [
    'a quoted field over three lines',
    'a,b\n"x\ny\nz",1\n3,4\n',
    [
      { line: 2, cells: ['x\ny\nz', '1'] },
      { line: 5, cells: ['3', '4'] },
    ],
  ],
  [
    'blank lines skipped, lines still counted',
    'a,b\n\n1,2\n   \n\n3,4\n',
    [
      { line: 3, cells: ['1', '2'] },
      { line: 6, cells: ['3', '4'] },
    ],
  ],
  ['doubled quotes', 'a,b\n"say ""hi""",2\n', [{ line: 2, cells: ['say "hi"', '2'] }]],
  [
    'rows of any length',
    'a,b,c\n1\n1,2,3,4\n',
    [
      { line: 2, cells: ['1'] },
      { line: 3, cells: ['1', '2', '3', '4'] },
    ],
  ],
  ['a stray quote inside an unquoted field', 'a,b\nsay "hi",2\n', [{ line: 2, cells: ['say "hi"', '2'] }]],
  ['no final line break', 'a,b\n1,2', [{ line: 2, cells: ['1', '2'] }]],
]

describe('readCsv()', () => {
  for (const [name, text, rows] of tables) {
    test(name, () => {
      const table = readCsv(text)
      assert.deepEqual(table.rows, rows)
    })
  }

  // The parser is called once per window of records; a window of 1 or 2 puts a boundary after every
  // record, multi-line and blank ones included, and must read the same rows on the same lines.
  for (const [name, text, rows] of tables) {
    for (const window of [1, 2]) {
      test(`${name}, read ${window} record${window === 1 ? '' : 's'} at a time`, () => {
        const reader = openCsv(text, null, window)
        assert.deepEqual(reader.columns, readCsv(text).columns)
        assert.deepEqual([...reader.rows], rows)
      })
    }
  }

  test('lines of only spaces, tabs and commas are blank records, however many, on every window boundary', () => {
    const text = `a,b\n${'\n'.repeat(10)}1,2\n${' ,\t, \n'.repeat(3)}3,4\n,,,\n`
    const rows = [
      { line: 12, cells: ['1', '2'] },
      { line: 16, cells: ['3', '4'] },
    ]
    for (const window of [1, 2, 1000]) assert.deepEqual([...openCsv(text, null, window).rows], rows)
  })

  test('blank records count towards a window: one parser call never reads past it (docs/import-export.md#jobs)', () => {
    // 5,000 blank lines, then a quote that is never closed. The first window (the header, a record and
    // 998 blank ones) ends long before it, so the first row comes out and only reading on finds it;
    // when blank records did not count, the first call read the whole file, however long, and threw.
    const text = `a,b\n1,2\n${' \n'.repeat(5000)}"unclosed,3\n`
    const reader = openCsv(text, null, 1000)
    assert.deepEqual(reader.columns, ['a', 'b'])
    assert.deepEqual(reader.rows.next().value, { line: 2, cells: ['1', '2'] })
    assert.throws(() => [...reader.rows], {
      message: 'the CSV is malformed at line 5003: a quoted field opens there and is never closed',
    })
  })

  test('column names are trimmed and lowercased', () => {
    assert.deepEqual(readCsv(' URL , Title,Selection \n').columns, ['url', 'title', 'selection'])
  })
})

const broken: readonly [name: string, text: string, message: string][] = [
  [
    'an unclosed quote',
    `${HEADER}\nA,https://a.example/,1600000000,,unread\n"Broken title,https://b.example/,1600000000,,unread\nC,https://c.example/,1600000000,,unread\n`,
    'the CSV is malformed at line 3: a quoted field opens there and is never closed',
  ],
  [
    'an unclosed quote after blank lines',
    `${HEADER}\n\n\nA,"https://a.example/,1600000000,,unread\n`,
    'the CSV is malformed at line 4: a quoted field opens there and is never closed',
  ],
  [
    'an unclosed quote in the header',
    `"title,url,time_added,tags,status\nA,https://a.example/,1600000000,,unread\n`,
    'the CSV is malformed at line 1: a quoted field opens there and is never closed',
  ],
]

describe('a CSV with broken quoting is refused, naming the line', () => {
  for (const [name, text, message] of broken) {
    test(name, () => {
      assert.throws(
        () => parseImportFile(new TextEncoder().encode(text), { now: NOW }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFormatError)
          assert.equal(error.message, message)
          return true
        },
      )
    })
  }

  for (const [name, text, message] of broken) {
    test(`${name}, read a record at a time`, () => {
      assert.throws(() => [...openCsv(text, null, 1).rows], { message })
    })
  }

  test('an unclosed quote windows after the start: the rows before it come first, then the error names its line', () => {
    const lines = [HEADER]
    for (let i = 1; i <= 2500; i++) lines.push(`T${i},https://a.example/${i},1600000000,,unread`)
    lines.push('"Broken,https://b.example/,1600000000,,unread', 'After,https://c.example/,1600000000,,unread')
    const rows = openCsv(lines.join('\n')).rows
    let read = 0
    assert.throws(
      () => {
        for (const row of rows) {
          read++
          assert.equal(row.line, read + 1)
        }
      },
      { message: 'the CSV is malformed at line 2502: a quoted field opens there and is never closed' },
    )
    // Two whole windows of 1,000 records (the header and 1,999 rows) are handed on before the third fails.
    assert.equal(read, 1999)
  })

  test('in a part of a zip, the part is named', () => {
    assert.throws(() => readCsv(`${HEADER}\n"A,b\n`, 'part_000001.csv'), {
      message: 'the CSV is malformed at part_000001.csv line 2: a quoted field opens there and is never closed',
    })
  })
})

describe('bad entries in a good CSV', () => {
  test('are listed with their lines; the rest are imported', () => {
    const text = [
      HEADER,
      'Fine,https://a.example/,1600000000,,unread',
      'Script,javascript:alert(1),1600000000,,unread',
      `Too long,https://a.example/${'x'.repeat(8200)},1600000000,,unread`,
      'Relative,/just/a/path,1600000000,,unread',
      'Ancient,https://b.example/,0,,unread',
      'Garbled,https://c.example/,next tuesday,,unread',
      'Future,https://d.example/,4102444800,,archive',
      'No URL,,1600000000,,unread',
      '',
    ].join('\n')
    const parsed = parseImportFile(new TextEncoder().encode(text), { now: NOW })
    assert.deepEqual(
      parsed.entries.map((entry) =>
        entry.ok ? [entry.entry.line, entry.entry.url, entry.entry.savedAt] : [entry.error.line, entry.error.message],
      ),
      [
        [2, 'https://a.example/', '2020-09-13T12:26:40.000Z'],
        [3, 'the URL "javascript:alert(1)" cannot be saved: scheme "javascript:" is not http or https'],
        [
          4,
          `the URL "https://a.example/${'x'.repeat(82)}…" cannot be saved: it is 8218 characters long, the limit is 8192`,
        ],
        [5, 'the URL "/just/a/path" cannot be saved: it is not an absolute URL'],
        [6, 'time_added "0" (1970-01-01T00:00:00.000Z) is before 1990'],
        [7, 'time_added "next tuesday" cannot be read as a date'],
        [8, 'https://d.example/', '2025-06-01T00:00:00.000Z'],
        [9, 'the entry has no URL'],
      ],
    )
  })
})
