import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { parseImportFile } from '../../../core/import/parse-import.ts'
import { parseNetscape } from '../../../core/import/netscape.ts'
import { MAX_FOLDER_NAME_LENGTH } from '../../../core/folders/folder-name.ts'

// docs/import-export.md#formats (netscape): folders, read state, and files shaped to hurt.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const HEAD = '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n'

/** `depth` folders nested one in another, a bookmark at the bottom, then every list closed. */
function nested(depth: number): string {
  const parts = [HEAD, '<DL><p>\n']
  for (let i = 0; i < depth; i++) parts.push(`<DT><H3 ADD_DATE="1600000000">F${i}</H3>\n<DL><p>\n`)
  parts.push('<DT><A HREF="https://deep.example/" ADD_DATE="1600000000">Deep</A>\n')
  for (let i = 0; i < depth; i++) parts.push('</DL><p>\n')
  parts.push('<DT><A HREF="https://top.example/">Top</A>\n</DL><p>\n')
  return parts.join('')
}

describe('netscape: deep nesting', () => {
  test('100,000 nested folders: no stack overflow, well under a second, the path cut to the limit', () => {
    const html = nested(100_000)
    const started = performance.now()
    const parsed = parseImportFile(new TextEncoder().encode(html), { now: NOW })
    const elapsed = performance.now() - started
    assert.ok(elapsed < 1000, `took ${Math.round(elapsed)} ms`)
    assert.equal(parsed.format, 'netscape')
    const [deep, top] = parsed.entries
    assert.ok(deep?.ok && top?.ok)
    // Three lines of head, the outer list, two lines per folder, then the bookmark.
    assert.equal(deep.entry.line, 5 + 2 * 100_000)
    const expected = Array.from({ length: 30 }, (_, i) => `F${i}`)
      .join(' / ')
      .slice(0, MAX_FOLDER_NAME_LENGTH)
      .trimEnd()
    assert.equal(deep.entry.folder, expected.endsWith(' /') ? expected.slice(0, -2) : expected)
    assert.equal([...(deep.entry.folder ?? '')].length <= MAX_FOLDER_NAME_LENGTH, true)
    // Every list closed again: the last bookmark is back at the top.
    assert.equal(top.entry.folder, null)
  })

  test('time grows linearly with depth', () => {
    // The fastest of three runs, so a pause of the collector in one run does not decide.
    const time = (depth: number) => {
      const html = nested(depth)
      let fastest = Number.POSITIVE_INFINITY
      for (let run = 0; run < 3; run++) {
        const started = performance.now()
        parseNetscape(html, NOW)
        fastest = Math.min(fastest, performance.now() - started)
      }
      return fastest
    }
    const small = Math.max(time(20_000), 1)
    const large = time(80_000)
    // Quadratic work would take ~16× as long for 4× the depth; allow generous noise above 4×.
    assert.ok(large < small * 10, `20,000: ${small.toFixed(1)} ms, 80,000: ${large.toFixed(1)} ms`)
  })

  test('lists left open or closed too often do not break the file', () => {
    const html = `${HEAD}</DL></DL><DL><p><DT><H3>A</H3><DL><p><DT><A HREF="https://a.example/">a</A>`
    const entries = parseNetscape(html, NOW)
    assert.equal(entries.length, 1)
    assert.ok(entries[0]?.ok)
    assert.equal(entries[0].entry.folder, 'A')
  })
})

describe('netscape: folders', () => {
  const cases: readonly [name: string, body: string, folders: (string | null)[]][] = [
    [
      'the browser roots are folders too',
      '<DL><p><DT><H3 PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3><DL><p><DT><A HREF="https://a.example/">a</A></DL><p></DL><p>',
      ['Bookmarks bar'],
    ],
    ['H1 is not a folder', '<H1>Bookmarks Menu</H1><DL><p><DT><A HREF="https://a.example/">a</A></DL>', [null]],
    [
      'an empty H3 adds no level',
      '<DL><p><DT><H3>Outer</H3><DL><p><DT><H3> </H3><DL><p><DT><A HREF="https://a.example/">a</A></DL><p></DL><p></DL>',
      ['Outer'],
    ],
    [
      'siblings do not nest',
      '<DL><p><DT><H3>One</H3><DL><p><DT><A HREF="https://a.example/">a</A></DL><p><DT><H3>Two</H3><DL><p><DT><A HREF="https://b.example/">b</A></DL><p></DL>',
      ['One', 'Two'],
    ],
    [
      'entities in names are decoded',
      '<DL><p><DT><H3>R&amp;D &#8212; notes</H3><DL><p><DT><A HREF="https://a.example/">a</A></DL></DL>',
      ['R&D — notes'],
    ],
    [
      'an anchor without HREF is not a bookmark',
      '<DL><p><DT><A NAME="top">top</A><DT><A HREF="https://a.example/">a</A></DL>',
      [null],
    ],
  ]
  for (const [name, body, folders] of cases) {
    test(name, () => {
      const entries = parseNetscape(`${HEAD}${body}`, NOW)
      assert.deepEqual(
        entries.map((entry) => (entry.ok ? entry.entry.folder : entry.error.message)),
        folders,
      )
    })
  }
})

describe('netscape: read state', () => {
  const cases: readonly [name: string, anchors: string, read: boolean[]][] = [
    [
      'no TOREAD anywhere: all unread',
      '<DT><A HREF="https://a.example/">a</A><DT><A HREF="https://b.example/">b</A>',
      [false, false],
    ],
    [
      'TOREAD somewhere: 1 is unread, anything else read',
      '<DT><A HREF="https://a.example/" TOREAD="1">a</A><DT><A HREF="https://b.example/" TOREAD="0">b</A><DT><A HREF="https://c.example/">c</A>',
      [false, true, true],
    ],
  ]
  for (const [name, anchors, read] of cases) {
    test(name, () => {
      const entries = parseNetscape(`${HEAD}<DL><p>${anchors}</DL>`, NOW)
      assert.deepEqual(
        entries.map((entry) => entry.ok && entry.entry.isRead),
        read,
      )
    })
  }
})

describe('netscape: titles', () => {
  test('an unclosed anchor ends at the next item, and its description is not its title', () => {
    const entries = parseNetscape(
      `${HEAD}<DL><p><DT><A HREF="https://a.example/">First\n<DD>A description\n<DT><A HREF="https://b.example/">Second</A></DL>`,
      NOW,
    )
    assert.deepEqual(
      entries.map((entry) => entry.ok && entry.entry.title),
      ['First', 'Second'],
    )
  })

  test('a link shown by its own URL has no title (a page without one, as browsers and our export write it)', () => {
    const entries = parseNetscape(
      `${HEAD}<DL><p><DT><A HREF="https://a.example/x">https://a.example/x</A><DT><A HREF="https://b.example/">https://b.example/other</A></DL>`,
      NOW,
    )
    assert.deepEqual(
      entries.map((entry) => entry.ok && entry.entry.title),
      [null, 'https://b.example/other'],
    )
  })

  test('markup inside a title is dropped, its text kept', () => {
    const [entry] = parseNetscape(
      `${HEAD}<DL><p><DT><A HREF="https://a.example/">A <b>bold</b> &lt;claim&gt;</A></DL>`,
      NOW,
    )
    assert.ok(entry?.ok)
    assert.equal(entry.entry.title, 'A bold <claim>')
  })
})

describe('netscape: ADD_DATE_MS', () => {
  // docs/import-export.md#export: our export writes createdAt to the millisecond beside ADD_DATE.
  const savedAtOf = (attributes: string) => {
    const [entry] = parseNetscape(`${HEAD}<DL><p><DT><A HREF="https://a.example/" ${attributes}>a</A></DL>`, NOW)
    return entry!.ok ? entry!.entry.savedAt : entry!.error.message
  }

  test('agreeing with ADD_DATE: the exact millisecond, before 2001 too', () => {
    assert.equal(savedAtOf('ADD_DATE="1700000000" ADD_DATE_MS="1700000000589"'), '2023-11-14T22:13:20.589Z')
    assert.equal(savedAtOf('ADD_DATE="946684800" ADD_DATE_MS="946684800123"'), '2000-01-01T00:00:00.123Z')
  })

  test('disagreeing, malformed or alone: ADD_DATE decides', () => {
    assert.equal(savedAtOf('ADD_DATE="1700000000" ADD_DATE_MS="1600000000589"'), '2023-11-14T22:13:20.000Z')
    assert.equal(savedAtOf('ADD_DATE="1700000000" ADD_DATE_MS="soon"'), '2023-11-14T22:13:20.000Z')
    assert.equal(savedAtOf('ADD_DATE_MS="1700000000589"'), null)
  })
})
