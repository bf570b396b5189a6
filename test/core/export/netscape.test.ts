import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { ExportItem } from '../../../core/export/export-item.ts'
import { escapeHtml, NETSCAPE_HEAD, netscapeExportChunks, unixSeconds } from '../../../core/export/netscape.ts'
import {
  collect,
  EXPORTED_AT,
  exportItem,
  fromArray,
  HOSTILE,
  HOSTILE_ITEM,
  readBookmarks,
  THREE_ITEMS,
} from './export-fixtures.ts'

// docs/import-export.md#export: the Netscape bookmark file that browsers, Pinboard and Raindrop import.

const exportHtml = async (items: readonly ExportItem[]) =>
  (await collect(netscapeExportChunks(fromArray(items), { exportedAt: EXPORTED_AT }))).join('')

const HEAD = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
`

const escapes: readonly [text: string, expected: string][] = [
  ['plain', 'plain'],
  ['"><script>alert(1)</script>', '&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['&amp;', '&amp;amp;'],
  ["it's", 'it&#39;s'],
  ['a\nb\r\nc', 'a&#10;b&#13;&#10;c'],
  ['日本語 🎉, tab\t', '日本語 🎉, tab\t'],
]

describe('escapeHtml()', () => {
  for (const [text, expected] of escapes) {
    test(JSON.stringify(text), () => {
      assert.equal(escapeHtml(text), expected)
    })
  }
})

describe('unixSeconds()', () => {
  test('whole seconds, rounded down', () => {
    assert.equal(unixSeconds('2026-11-24T18:30:15.999Z'), 1795545015)
    assert.equal(unixSeconds('1970-01-01T00:00:00.000Z'), 0)
  })
  test('refuses what is not a date', () => {
    assert.throws(() => unixSeconds('yesterday'), RangeError)
  })
})

describe('netscapeExportChunks()', () => {
  test('an empty library is the head and the closing list', async () => {
    const chunks = await collect(netscapeExportChunks(fromArray([]), { exportedAt: EXPORTED_AT }))
    assert.deepEqual(chunks, [HEAD, '</DL><p>\n'])
    assert.equal(NETSCAPE_HEAD, HEAD)
    assert.deepEqual(readBookmarks(chunks.join('')), { folders: [], bookmarks: [] })
  })

  test('writes a head, one chunk per item (with its folder block) and a tail, exactly', async () => {
    const chunks = await collect(netscapeExportChunks(fromArray(THREE_ITEMS), { exportedAt: EXPORTED_AT }))
    assert.deepEqual(chunks, [
      HEAD,
      '    <DT><H3 ADD_DATE="1795601045">Reading</H3>\n' +
        '    <DL><p>\n' +
        '        <DT><A HREF="https://example.com/typed?a=1&amp;b=2" ADD_DATE="1795161600" ADD_DATE_MS="1795161600000" LAST_MODIFIED="1795545015" TAGS="typescript,tools" TOREAD="1">Typed streams</A>\n' +
        '        <DD>How to stream a library\n',
      '        <DT><A HREF="https://video.example.org/watch?v=42" ADD_DATE="1790856000" ADD_DATE_MS="1790856000000" LAST_MODIFIED="1795470359" TAGS="" TOREAD="0">https://video.example.org/watch?v=42</A>\n',
      '    </DL><p>\n' +
        '    <DT><A HREF="https://example.com/posts/streams?utm_source=feed" ADD_DATE="1788418800" ADD_DATE_MS="1788418800000" LAST_MODIFIED="1793610900" TAGS="ai" TOREAD="0">Plain</A>\n',
      '</DL><p>\n',
    ])
  })

  test('an HTML parser reads back what was written', async () => {
    assert.deepEqual(readBookmarks(await exportHtml(THREE_ITEMS)), {
      folders: ['Reading'],
      bookmarks: [
        {
          folder: 'Reading',
          href: 'https://example.com/typed?a=1&b=2',
          addDate: '1795161600',
          lastModified: '1795545015',
          tags: 'typescript,tools',
          toRead: '1',
          title: 'Typed streams',
          description: 'How to stream a library',
        },
        {
          folder: 'Reading',
          href: 'https://video.example.org/watch?v=42',
          addDate: '1790856000',
          lastModified: '1795470359',
          tags: '',
          toRead: '0',
          title: 'https://video.example.org/watch?v=42',
          description: null,
        },
        {
          folder: null,
          href: 'https://example.com/posts/streams?utm_source=feed',
          addDate: '1788418800',
          lastModified: '1793610900',
          tags: 'ai',
          toRead: '0',
          title: 'Plain',
          description: null,
        },
      ],
    })
  })

  test('hostile text survives exactly, and each bookmark stays on its own lines', async () => {
    const html = await exportHtml([HOSTILE_ITEM, exportItem({ id: 'itm_after', title: 'After' })])
    assert.equal(html.includes('<script'), false)
    const { folders, bookmarks } = readBookmarks(html)
    assert.deepEqual(folders, [`Tom & "Jerry's" <Folder>, 🎉`])
    assert.deepEqual(
      bookmarks.map(({ folder, href, tags, title, description }) => ({ folder, href, tags, title, description })),
      [
        {
          folder: `Tom & "Jerry's" <Folder>, 🎉`,
          href: HOSTILE_ITEM.originalUrl,
          tags: 'front-end,security',
          title: HOSTILE,
          description: `${HOSTILE}  `,
        },
        { folder: null, href: exportItem().originalUrl, tags: '', title: 'After', description: null },
      ],
    )
    // Head (6 lines), folder heading and list, the bookmark and its description, the folder's end, the
    // second bookmark, the tail: no line break of the text reached the file.
    assert.equal(html.split('\n').length - 1, 6 + 2 + 2 + 1 + 1 + 1)
  })

  test('an empty title shows the URL, an empty description writes no <DD>', async () => {
    const html = await exportHtml([exportItem({ title: '', description: '' })])
    const { bookmarks } = readBookmarks(html)
    assert.equal(bookmarks[0]!.title, exportItem().originalUrl)
    assert.equal(html.includes('<DD>'), false)
  })

  test('a folder block opens each time the folder changes, so interleaved folders repeat', async () => {
    const alpha = { id: 'fld_a', name: 'Alpha' }
    const beta = { id: 'fld_b', name: 'Beta' }
    const items = [alpha, alpha, beta, null, alpha, null, null, beta].map((folder, index) =>
      exportItem({ id: `itm_${index}`, title: `Item ${index}`, folder }),
    )
    const { folders, bookmarks } = readBookmarks(await exportHtml(items))
    assert.deepEqual(folders, ['Alpha', 'Beta', 'Alpha', 'Beta'])
    assert.deepEqual(
      bookmarks.map((bookmark) => [bookmark.title, bookmark.folder]),
      items.map((item) => [item.title, item.folder?.name ?? null]),
    )
  })

  test('items ordered by folder make one block per folder', async () => {
    const alpha = { id: 'fld_a', name: 'Alpha' }
    const beta = { id: 'fld_b', name: 'Beta' }
    const items = [null, null, alpha, alpha, alpha, beta].map((folder, index) =>
      exportItem({ id: `itm_${index}`, title: `Item ${index}`, folder }),
    )
    const html = await exportHtml(items)
    assert.deepEqual(readBookmarks(html).folders, ['Alpha', 'Beta'])
    assert.equal(html.match(/<H3 /g)?.length, 2)
  })

  test('a folder is told apart by its id, not its name', async () => {
    const items = [
      exportItem({ id: 'itm_1', folder: { id: 'fld_1', name: 'Same' } }),
      exportItem({ id: 'itm_2', folder: { id: 'fld_2', name: 'Same' } }),
    ]
    assert.deepEqual(readBookmarks(await exportHtml(items)).folders, ['Same', 'Same'])
  })

  test('a timestamp that is not a date fails rather than writing NaN', async () => {
    await assert.rejects(exportHtml([exportItem({ createdAt: 'not a date' })]), RangeError)
    await assert.rejects(
      collect(netscapeExportChunks(fromArray([]), { exportedAt: 'someday' })),
      RangeError,
      'before the head is written',
    )
  })
})
