import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { bytesToKeep, decodeText } from '../../../core/import/decode-text.ts'
import { parseImportFile, readImportFile } from '../../../core/import/parse-import.ts'
import { ImportFormatError } from '../../../core/import/types.ts'
import { omnivoreZip, pocketZip, readFixture } from '../../fixtures/import/read-fixture.ts'

// docs/import-export.md#jobs: an import file is read as its entries are asked for. The upload counts the
// items (the whole file read, nothing kept); the job reads the entries again from where it stopped.
// parse-import.test.ts checks every fixture entry for entry; here the streamed reading must agree with it.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const encoder = new TextEncoder()

const files: readonly [name: string, bytes: () => Uint8Array][] = [
  ['pocket.csv', () => readFixture('pocket.csv')],
  ['pocket zip', () => pocketZip()],
  ['pocket-export.html', () => readFixture('pocket-export.html')],
  ['chrome-bookmarks.html', () => readFixture('chrome-bookmarks.html')],
  ['firefox-bookmarks.html', () => readFixture('firefox-bookmarks.html')],
  ['pinboard-bookmarks.html', () => readFixture('pinboard-bookmarks.html')],
  ['instapaper.csv', () => readFixture('instapaper.csv')],
  ['omnivore zip', () => omnivoreZip()],
  ['wallabag.json', () => readFixture('wallabag.json')],
  ['readlater.json', () => readFixture('readlater.json')],
  ['readlater.csv', () => readFixture('readlater.csv')],
  ['urls.txt', () => readFixture('urls.txt')],
]

describe('readImportFile() agrees with reading the file whole', () => {
  for (const [name, bytes] of files) {
    test(`${name}: as many items as entries, and entries(skip) is the rest from there`, () => {
      const whole = parseImportFile(bytes(), { now: NOW }).entries
      const file = readImportFile(bytes(), { now: NOW })
      assert.ok(whole.length > 1)
      assert.equal([...file.items()].length, whole.length)
      for (let skip = 0; skip <= whole.length + 1; skip++) {
        assert.deepEqual([...file.entries(skip)], whole.slice(skip), `skip ${skip}`)
      }
    })
  }
})

/** A bookmark file of `count` entries, over many of the scanner's 64 Ki pieces, and what each must read as. */
function bigBookmarks(count: number, toRead: boolean) {
  const lines = ['<!DOCTYPE NETSCAPE-Bookmark-file-1>', '<DL><p>', '<DT><H3>Shelf</H3>', '<DL><p>']
  const expected: { line: number; url: string; title: string; isRead: boolean }[] = []
  for (let i = 0; i < count; i++) {
    // Titles of varying length with an entity, so tags, attributes and entities fall across piece boundaries.
    const title = `Entry ${i} &amp; ${'word '.repeat(i % 37)}end`
    const mark = toRead ? ` TOREAD="${i % 2}"` : ''
    lines.push(`<DT><A HREF="https://site${i % 50}.example/${i}" ADD_DATE="1600000000"${mark}>${title}</A>`)
    expected.push({
      line: lines.length,
      url: `https://site${i % 50}.example/${i}`,
      title: `Entry ${i} & ${'word '.repeat(i % 37)}end`,
      isRead: toRead && i % 2 === 0,
    })
  }
  lines.push('</DL><p>', '</DL><p>')
  return { bytes: encoder.encode(lines.join('\n')), expected }
}

describe('large files are read in pieces', () => {
  test('a bookmark file of 5,000 entries (~750 KB): every entry whole, on its line, in its folder', () => {
    const { bytes, expected } = bigBookmarks(5000, false)
    assert.ok(bytes.length > 8 * 64 * 1024)
    const entries = readImportFile(bytes, { now: NOW }).entries()
    let index = 0
    for (const parsed of entries) {
      assert.ok(parsed.ok)
      const want = expected[index++]!
      assert.deepEqual(
        [parsed.entry.line, parsed.entry.url, parsed.entry.title, parsed.entry.isRead, parsed.entry.folder],
        [want.line, want.url, want.title, want.isRead, 'Shelf'],
      )
    }
    assert.equal(index, 5000)
  })

  test('Pinboard TOREAD in a large file is known from the first entry on', () => {
    const { bytes, expected } = bigBookmarks(3000, true)
    const read = [...readImportFile(bytes, { now: NOW }).entries()].map((parsed) => parsed.ok && parsed.entry.isRead)
    assert.deepEqual(
      read,
      expected.map((want) => want.isRead),
    )
  })

  test('a Pocket CSV of 2,500 rows (three windows) with errors: every row once, errors on their lines', () => {
    const lines = ['title,url,time_added,tags,status']
    for (let i = 0; i < 2500; i++) {
      if (i % 500 === 7) lines.push(`Bad ${i},javascript:void(0),1600000000,,unread`)
      else if (i % 300 === 0) lines.push(`"Two\nlines ${i}",https://a.example/${i},1600000000,,archive`)
      else lines.push(`Row ${i},https://a.example/${i},1600000000,,unread`)
    }
    const file = readImportFile(encoder.encode(lines.join('\n')), { now: NOW })
    const entries = [...file.entries()]
    assert.equal(entries.length, 2500)
    assert.equal([...file.items()].length, 2500)
    const errors = entries.flatMap((parsed) => (parsed.ok ? [] : [parsed.error.line]))
    // Row i sits on line 2 + i + (the multi-line rows before it: i = 0, 300, 600, …).
    const lineOf = (i: number) => 2 + i + Math.ceil(i / 300)
    assert.deepEqual(errors, [7, 507, 1007, 1507, 2007].map(lineOf))
    const last = entries.at(-1)!
    assert.ok(last.ok)
    assert.deepEqual([last.entry.line, last.entry.url], [lineOf(2499), 'https://a.example/2499'])
    // Resuming mid-way (a job after a crash) reads the same entries from there.
    assert.deepEqual([...file.entries(1234)], entries.slice(1234))
  })

  test('a file-level fault far into the file surfaces while counting, before anything is kept', () => {
    const lines = ['title,url,time_added,tags,status']
    for (let i = 0; i < 3000; i++) lines.push(`Row ${i},https://a.example/${i},1600000000,,unread`)
    lines.push('"Never closed,https://b.example/,1600000000,,unread')
    const file = readImportFile(encoder.encode(lines.join('\n')), { now: NOW })
    assert.throws(() => [...file.items()], ImportFormatError)
  })
})

describe('bytesToKeep()', () => {
  // C3 A9 is "é" in UTF-8 and "Ã©" in ISO-8859-1.
  const bytes = encoder.encode('https://a.example/Café\n')
  test('keeps the upload as it is unless a Content-Type charset decided the text', () => {
    assert.equal(bytesToKeep(bytes, null), bytes)
    assert.equal(bytesToKeep(bytes, 'text/plain'), bytes)
    assert.equal(bytesToKeep(bytes, 'text/plain; charset=utf-8'), bytes)
    assert.equal(bytesToKeep(bytes, 'text/plain; charset=no-such-charset'), bytes)
    const zip = pocketZip()
    assert.equal(bytesToKeep(zip, 'application/zip; charset=iso-8859-1'), zip)
  })

  test('with a declared charset: the text as read, in UTF-8 behind a BOM, so a later reading sees the same', () => {
    const kept = bytesToKeep(bytes, 'text/plain; charset=ISO-8859-1')
    assert.deepEqual([...kept.subarray(0, 3)], [0xef, 0xbb, 0xbf])
    assert.equal(decodeText(kept), 'https://a.example/CafÃ©\n')
    assert.equal(decodeText(kept), decodeText(bytes, 'text/plain; charset=ISO-8859-1'))
  })
})
