import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { unzipSync } from 'fflate'
import type { ExportHighlight } from '../../../core/export/export-item.ts'
import {
  highlightsMarkdown,
  MARKDOWN_FILE_NAME_MAX,
  markdownExportChunks,
  markdownFileName,
  yamlString,
} from '../../../core/export/markdown.ts'
import { collect, EXPORTED_AT, exportItem, fromArray } from './export-fixtures.ts'

// docs/import-export.md#markdown-export: one Markdown file per highlighted item, YAML front matter, each
// highlight a `>` quote and its note; a streamed zip. (The front matter read back by real YAML parsers:
// test/http/highlights-io.test.ts, on Bun.)

const highlight = (exact: string, note: string | null = null, changes: Partial<ExportHighlight> = {}) => ({
  id: '01935c6e-8b1c-7d3e-9f00-2a1b3c4d5e6f',
  quote: { exact, prefix: '', suffix: '' },
  position: null,
  color: 'yellow' as const,
  note,
  createdAt: '2026-11-22T10:04:05.123Z',
  updatedAt: '2026-11-22T10:04:05.123Z',
  ...changes,
})

const decoder = new TextDecoder()
const concat = (chunks: Uint8Array[]) => {
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0))
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.length
  }
  return all
}

describe('highlightsMarkdown()', () => {
  test('front matter, then each highlight as a quote and its note, exactly', () => {
    const text = highlightsMarkdown(
      exportItem({
        title: 'Rust: "memory safety" --- explained',
        tags: ['ai', 'tools'],
        folder: { id: 'fld_1', name: 'Deep reads' },
        highlights: [
          highlight('memory safety', 'Compare with Go'),
          highlight('First line\nsecond line\n\nafter a blank line'),
          highlight('No note here', null),
        ],
      }),
    )
    assert.equal(
      text,
      [
        '---',
        'title: "Rust: \\"memory safety\\" --- explained"',
        'url: "https://example.com/posts/streams?utm_source=feed"',
        'savedAt: "2026-11-20T08:00:00.000Z"',
        'tags: ["ai", "tools"]',
        'folder: "Deep reads"',
        '---',
        '',
        '> memory safety',
        '',
        'Compare with Go',
        '',
        '> First line',
        '> second line',
        '>',
        '> after a blank line',
        '',
        '> No note here',
        '',
      ].join('\n'),
    )
  })

  test('no title, no folder, no tags: null, null and []', () => {
    const text = highlightsMarkdown(exportItem({ title: null, highlights: [highlight('x')] }))
    assert.match(text, /^---\ntitle: null\nurl: ".*"\nsavedAt: ".*"\ntags: \[\]\nfolder: null\n---\n\n> x\n$/)
  })

  test('a multi-line note keeps its lines, CR LF made LF', () => {
    const text = highlightsMarkdown(exportItem({ highlights: [highlight('q', 'one\r\ntwo\rthree')] }))
    assert.ok(text.endsWith('> q\n\none\ntwo\nthree\n'))
  })
})

describe('yamlString()', () => {
  test('JSON string syntax: quotes, backslashes and line breaks escaped', () => {
    assert.equal(yamlString('a "b" \\ c\nd\re\tf'), '"a \\"b\\" \\\\ c\\nd\\re\\tf"')
  })
  test('characters YAML does not take as they are, or that YAML 1.1 reads as line breaks, as \\u escapes', () => {
    assert.equal(
      yamlString('a\u0085b\u2028c\u2029d\ufeffe\u007ff\u009f'),
      '"a\\u0085b\\u2028c\\u2029d\\ufeffe\\u007ff\\u009f"',
    )
  })
  test('a lone surrogate becomes U+FFFD; a pair stays', () => {
    assert.equal(yamlString('half \ud83d, whole 😀'), '"half \ufffd, whole 😀"')
  })
  test('`---` and `...` stay inside the string', () => {
    assert.equal(yamlString('---\n...'), '"---\\n..."')
  })
})

describe('markdownFileName()', () => {
  test('from the title, unsafe characters made spaces', () => {
    const taken = new Set<string>()
    assert.equal(
      markdownFileName('Rust: why/how? <2024> "safe" | #1 [a]^b*', 'https://x.example/', taken),
      'Rust why how 2024 safe 1 a b.md',
    )
  })
  test('unique whatever the case, with (2), (3)', () => {
    const taken = new Set<string>()
    assert.equal(markdownFileName('Notes', 'https://x.example/', taken), 'Notes.md')
    assert.equal(markdownFileName('notes', 'https://x.example/', taken), 'notes (2).md')
    assert.equal(markdownFileName('NOTES', 'https://x.example/', taken), 'NOTES (3).md')
  })
  test('no title: the URL without its scheme; nothing left: Untitled', () => {
    const taken = new Set<string>()
    assert.equal(markdownFileName(null, 'https://example.com/a/b?c=1', taken), 'example.com a b c=1.md')
    assert.equal(markdownFileName(' ... ', 'https://', taken), 'Untitled.md')
  })
  test('no leading dot, no trailing dot or space; Windows device names changed; controls and bidi overrides gone', () => {
    const taken = new Set<string>()
    assert.equal(markdownFileName('.hidden.', 'https://x.example/', taken), 'hidden.md')
    assert.equal(markdownFileName('CON', 'https://x.example/', taken), 'CON_.md')
    assert.equal(markdownFileName('a\u202egpj.md\u0007b', 'https://x.example/', taken), 'a gpj.md b.md')
  })
  test('Unicode kept (NFC), cut to 100 characters and 255 bytes, the suffix within them', () => {
    const taken = new Set<string>()
    assert.equal(markdownFileName('Cafe\u0301 – 東京', 'https://x.example/', taken), 'Café – 東京.md')
    const long = 'ä'.repeat(300)
    const first = markdownFileName(long, 'https://x.example/', taken)
    const second = markdownFileName(long, 'https://x.example/', taken)
    for (const name of [first, second]) {
      assert.ok([...name].length <= MARKDOWN_FILE_NAME_MAX, name)
      assert.ok(new TextEncoder().encode(name).length <= 255)
    }
    assert.ok(second.endsWith(' (2).md'))
    const emoji = markdownFileName('😀'.repeat(100), 'https://x.example/', taken)
    assert.ok(new TextEncoder().encode(emoji).length <= 255)
    assert.ok(!emoji.includes('\ufffd'), 'never half an emoji')
  })
})

describe('markdownExportChunks()', () => {
  test('a zip of one file per item with highlights, readable by an unzipper', async () => {
    const items = [
      exportItem({ id: 'a', title: 'Alpha', highlights: [highlight('one', 'note one')] }),
      exportItem({ id: 'b', title: 'No highlights', highlights: [] }),
      exportItem({ id: 'c', title: 'alpha', highlights: [highlight('two')] }),
    ]
    const zip = concat(await collect(markdownExportChunks(fromArray(items), { exportedAt: EXPORTED_AT })))
    const files = unzipSync(zip)
    assert.deepEqual(Object.keys(files), ['Alpha.md', 'alpha (2).md'])
    assert.equal(decoder.decode(files['Alpha.md']), highlightsMarkdown(items[0]!))
    assert.equal(decoder.decode(files['alpha (2).md']), highlightsMarkdown(items[2]!))
  })

  test('no item with highlights: an empty zip, still a zip', async () => {
    const zip = concat(await collect(markdownExportChunks(fromArray([exportItem()]), { exportedAt: EXPORTED_AT })))
    assert.deepEqual(unzipSync(zip), {})
  })

  test('streamed: each item read only once the chunks before it are taken', { timeout: 5000 }, async () => {
    let pulled = 0
    async function* endless() {
      for (let i = 0; ; i++) {
        pulled++
        yield exportItem({ id: `i${i}`, title: `Item ${i}`, highlights: [highlight(`passage ${i}`)] })
      }
    }
    const chunks = markdownExportChunks(endless(), { exportedAt: EXPORTED_AT })
    for (let i = 0; i < 5; i++) assert.equal((await chunks.next()).done, false)
    assert.ok(pulled <= 5, `${pulled} items read for 5 chunks`)
    await chunks.return(undefined)
  })
})
