import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Parser } from 'htmlparser2'
import { HIGHLIGHT_COLORS } from '../../../core/highlights/highlight.ts'
import {
  articleTextMap,
  isCollapsibleSpace,
  markArticle,
  type MarkedHighlight,
} from '../../../core/highlights/mark-article.ts'
import { articleText } from '../../../core/reading/article-text.ts'
import { sanitizeArticle } from '../../../core/reading/sanitize-article.ts'
import { ARTICLE_FIXTURES } from './article-fixtures.ts'

// docs/highlights.md#web: the reader view's marks are placed from text offsets over the sanitized article,
// walking the HTML with articleText's own rules. Proved here on fixture articles and on random ones: the
// walk gives articleText's text, marking adds no text, and each highlight's marks cover exactly its
// `[start, end)`.

/** A small deterministic random source (the tests must fail the same way twice). */
function randomSource(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  }
}

const WORDS = [
  'read',
  'later',
  ' ',
  '  ',
  '\n',
  '\t',
  '&amp;',
  '&lt;',
  '&gt;',
  '&nbsp;',
  '&#x1F600;',
  '😀',
  'café',
  '漢字',
  'é',
  '&quot;x&quot;',
  'word',
  'memory safety',
  '\u2003',
]

/** Random sanitized-looking article HTML: blocks, inline elements, lists, tables, pre, breaks. */
function randomArticle(seed: number): string {
  const r = randomSource(seed)
  const text = () => Array.from({ length: 1 + r.int(6) }, () => r.pick(WORDS)).join('')
  const inline = (depth: number): string => {
    const parts: string[] = []
    for (let i = 0, n = 1 + r.int(4); i < n; i++) {
      const kind = depth > 2 ? 0 : r.int(8)
      if (kind <= 2) parts.push(text())
      else if (kind === 3) parts.push('<br>')
      else if (kind === 4) parts.push(`<a href="https://example.com/${i}">${inline(depth + 1)}</a>`)
      else if (kind === 5) parts.push(`<img src="https://example.com/${i}.png" alt="alt ${i}">`)
      else parts.push(`<${r.pick(['em', 'strong', 'code', 'sub', 'sup'])}>${inline(depth + 1)}</${'x'}>`)
    }
    return parts.join(r.pick(['', ' ', '\n']))
  }
  // The generator closes elements with placeholders (`</x>`, `</ul>` for a list, `</h1>` for a heading):
  // each becomes the name of the element it closes.
  const balance = (markup: string): string => {
    const stack: string[] = []
    return markup.replace(/<(\/?)([a-z0-9]+)[^>]*>/g, (tag, closing: string, name: string) => {
      if (name === 'br' || name === 'img' || name === 'hr') return tag
      if (!closing) {
        stack.push(name)
        return tag
      }
      return `</${stack.pop()}>`
    })
  }
  const block = (depth: number): string => {
    const kind = depth > 1 ? r.int(3) : r.int(9)
    if (kind === 0) return `<p>${inline(0)}</p>`
    if (kind === 1) return `<h${1 + r.int(6)}>${inline(0)}</h1>`
    if (kind === 2) return text()
    if (kind === 3)
      return `<${r.pick(['ul', 'ol'])}>${Array.from({ length: 1 + r.int(3) }, () => `<li>${r.int(2) ? inline(0) : block(depth + 1)}</li>`).join('\n')}</ul>`
    if (kind === 4)
      return `<pre>${r.int(2) ? '\n' : ''}${r.int(2) ? `<code>${inline(2)}</code>` : inline(2)}${r.int(2) ? '  \n' : ''}</pre>`
    if (kind === 5) return `<blockquote>${block(depth + 1)}${block(depth + 1)}</blockquote>`
    if (kind === 6)
      return `<table>${r.int(2) ? `<caption>${text()}</caption>` : ''}\n${Array.from({ length: 1 + r.int(3) }, () => `<tr>${Array.from({ length: 1 + r.int(3) }, () => `<td>${inline(1)}</td>`).join(r.pick(['', '\n']))}</tr>`).join('\n')}</table>`
    if (kind === 7)
      return `<figure><img src="https://example.com/f.png" alt=""><figcaption>${inline(1)}</figcaption></figure>`
    return '<hr>'
  }
  const blocks = Array.from({ length: 2 + r.int(6) }, () => block(0)).join(r.pick(['', '\n', '\n\n  ']))
  return balance(blocks)
}

/** Random well-formed passages of `text`: never starting or ending inside a surrogate pair. */
function randomHighlights(text: string, seed: number, count: number): MarkedHighlight[] {
  const r = randomSource(seed)
  const boundary = (at: number) => {
    let i = Math.max(0, Math.min(text.length, at))
    if (i > 0 && i < text.length && /[\uDC00-\uDFFF]/.test(text[i]!)) i--
    return i
  }
  const found: MarkedHighlight[] = []
  for (let n = 0; n < count && text.length > 1; n++) {
    const start = boundary(r.int(text.length - 1))
    const end = boundary(start + 1 + r.int(Math.min(80, text.length - start)))
    if (end <= start) continue
    found.push({ id: `h${n}`, color: r.pick(HIGHLIGHT_COLORS), position: { start, end } })
  }
  return found
}

/**
 * The offsets of `text` each highlight's marks cover, read back from the marked HTML: the units of text
 * (in the order articleTextMap counts them) inside each `<mark data-highlight>`. Also checks that every
 * mark is closed where it was opened (none closed implicitly by the parser).
 */
function coveredOffsets(marked: string): Map<string, Set<number>> {
  const map = articleTextMap(marked)
  const stack: (string | null)[] = []
  const unitsOf = new Map<string, number[]>()
  let unit = 0
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        stack.push(name === 'mark' ? (attributes['data-highlight'] ?? null) : null)
      },
      ontext(text) {
        for (let i = 0; i < text.length; i++, unit++)
          for (const id of stack) if (id !== null) unitsOf.set(id, [...(unitsOf.get(id) ?? []), unit])
      },
      onclosetag(name, implied) {
        if (name === 'mark') assert.equal(implied, false, 'a mark closed implicitly')
        stack.pop()
      },
    },
    { decodeEntities: true },
  )
  parser.write(marked)
  parser.end()
  assert.equal(unit, map.offset.length)
  const covered = new Map<string, Set<number>>()
  for (const [id, units] of unitsOf)
    covered.set(id, new Set(units.map((u) => map.offset[u]!).filter((offset) => offset >= 0)))
  return covered
}

/** The offsets of `[start, end)` that a mark can cover: given by some text of the HTML outside a table's rows. */
function markableOffsets(html: string, start: number, end: number): Set<number> {
  const map = articleTextMap(html)
  const offsets = new Set<number>()
  for (let unit = 0; unit < map.offset.length; unit++) {
    const at = map.offset[unit]!
    if (at >= start && at < end && map.markable[unit]) offsets.add(at)
  }
  return offsets
}

/** The marks' text of one highlight, in document order (decoded). */
function marksText(marked: string, id: string): string[] {
  const texts: string[] = []
  let depth = 0
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (depth > 0) depth++
        else if (name === 'mark' && attributes['data-highlight'] === id) {
          depth = 1
          texts.push('')
        }
      },
      ontext(text) {
        if (depth > 0) texts[texts.length - 1] += text
      },
      onclosetag() {
        if (depth > 0) depth--
      },
    },
    { decodeEntities: true },
  )
  parser.write(marked)
  parser.end()
  return texts
}

function checkMarks(html: string, highlights: readonly MarkedHighlight[]): string {
  const text = articleText(html)
  const marked = markArticle(html, highlights, text)
  assert.equal(articleText(marked), text, 'marking changes no text')
  const covered = coveredOffsets(marked)
  for (const highlight of highlights) {
    const { start, end } = highlight.position!
    assert.deepEqual(
      [...(covered.get(highlight.id) ?? [])].sort((a, b) => a - b),
      [...markableOffsets(html, start, end)].sort((a, b) => a - b),
      `${highlight.id} [${start}, ${end}) ${JSON.stringify(text.slice(start, end))}`,
    )
    // The first mark alone carries the id the reader's links point at.
    const ids = marked.split(`id="highlight-${highlight.id}"`).length - 1
    assert.equal(ids, covered.has(highlight.id) ? 1 : 0)
  }
  return marked
}

describe('articleTextMap()', () => {
  test('`/\\s/` is isCollapsibleSpace, for every UTF-16 code unit', () => {
    for (let code = 0; code <= 0xffff; code++)
      assert.equal(isCollapsibleSpace(code), /\s/.test(String.fromCharCode(code)), `U+${code.toString(16)}`)
  })

  for (const [name, html] of Object.entries(ARTICLE_FIXTURES))
    test(`gives articleText's text, each kept character where it came from: ${name}`, () => {
      const map = articleTextMap(html)
      assert.equal(map.text, articleText(html))
      let previous = -1
      for (let unit = 0; unit < map.offset.length; unit++) {
        const at = map.offset[unit]!
        if (at < 0) continue
        assert.ok(at >= previous, 'offsets never go back')
        previous = at
        const source = html.slice(map.from[unit]!, map.to[unit]!)
        const kept = map.text[at]!
        // A character is itself, or the one space of a collapsed run of whitespace (outside pre).
        if (!isCollapsibleSpace(kept.charCodeAt(0))) assert.ok(source === kept || source.startsWith('&'), source)
      }
    })

  test('gives articleText’s text on 500 random articles', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const html = randomArticle(seed)
      assert.equal(articleTextMap(html).text, articleText(html), html)
    }
  })
})

describe('markArticle()', () => {
  test('wraps a passage in a mark with the id and the colour, nothing else', () => {
    const html = '<p>Rust gives memory safety without a garbage collector.</p>'
    const marked = markArticle(html, [{ id: 'a1', color: 'green', position: { start: 11, end: 24 } }])
    assert.equal(
      marked,
      '<p>Rust gives <mark class="hl hl-green" data-highlight="a1" id="highlight-a1">memory safety</mark> without a garbage collector.</p>',
    )
  })

  test('a passage across blocks, links and breaks is one mark per stretch of text; only the first has the id', () => {
    const html = '<p>One <a href="https://e.com/">two</a> three</p><p>four<br>five</p>'
    const text = articleText(html)
    assert.equal(text, 'One two three\n\nfour five')
    const marked = checkMarks(html, [{ id: 'x', color: 'blue', position: { start: 4, end: 24 } }])
    assert.equal(
      marked,
      '<p>One <a href="https://e.com/"><mark class="hl hl-blue" data-highlight="x" id="highlight-x">two</mark></a><mark class="hl hl-blue" data-highlight="x"> three</mark></p><p><mark class="hl hl-blue" data-highlight="x">four</mark><br><mark class="hl hl-blue" data-highlight="x">five</mark></p>',
    )
    assert.deepEqual(marksText(marked, 'x'), ['two', ' three', 'four', 'five'])
  })

  test('overlapping passages nest: the earlier (then longer) outside', () => {
    const html = '<p>abcdefghij</p>'
    const marked = checkMarks(html, [
      { id: 'late', color: 'pink', position: { start: 4, end: 9 } },
      { id: 'early', color: 'yellow', position: { start: 1, end: 6 } },
      { id: 'same', color: 'purple', position: { start: 1, end: 3 } },
    ])
    assert.equal(
      marked,
      '<p>a<mark class="hl hl-yellow" data-highlight="early" id="highlight-early"><mark class="hl hl-purple" data-highlight="same" id="highlight-same">bc</mark></mark><mark class="hl hl-yellow" data-highlight="early">d</mark><mark class="hl hl-yellow" data-highlight="early"><mark class="hl hl-pink" data-highlight="late" id="highlight-late">ef</mark></mark><mark class="hl hl-pink" data-highlight="late">ghi</mark>j</p>',
    )
  })

  test('character references stay whole, inside or outside a mark', () => {
    const html = '<p>Tom &amp; Jerry &#x1F600; caf&eacute;</p>'
    assert.equal(articleText(html), 'Tom & Jerry 😀 café')
    const marked = checkMarks(html, [
      { id: 'a', color: 'yellow', position: { start: 4, end: 5 } },
      { id: 'b', color: 'green', position: { start: 12, end: 14 } },
      { id: 'c', color: 'blue', position: { start: 15, end: 19 } },
    ])
    assert.equal(
      marked,
      '<p>Tom <mark class="hl hl-yellow" data-highlight="a" id="highlight-a">&amp;</mark> Jerry <mark class="hl hl-green" data-highlight="b" id="highlight-b">&#x1F600;</mark> <mark class="hl hl-blue" data-highlight="c" id="highlight-c">caf&eacute;</mark></p>',
    )
  })

  test('collapsed whitespace: a passage ending before a run of spaces leaves it out', () => {
    const html = '<p>foo  \n  <em>  bar</em></p>'
    assert.equal(articleText(html), 'foo bar')
    assert.equal(
      checkMarks(html, [{ id: 'f', color: 'yellow', position: { start: 0, end: 3 } }]),
      '<p><mark class="hl hl-yellow" data-highlight="f" id="highlight-f">foo</mark>  \n  <em>  bar</em></p>',
    )
    assert.equal(
      checkMarks(html, [{ id: 'b', color: 'yellow', position: { start: 4, end: 7 } }]),
      '<p>foo  \n  <em>  <mark class="hl hl-yellow" data-highlight="b" id="highlight-b">bar</mark></em></p>',
    )
  })

  test('no text of a table row outside its cells is wrapped (a browser would move it out of the table)', () => {
    const html = '<table><tr><td>a</td>\n<td>b</td></tr></table>'
    assert.equal(articleText(html), 'a b')
    const marked = checkMarks(html, [{ id: 't', color: 'yellow', position: { start: 0, end: 3 } }])
    assert.equal(
      marked,
      '<table><tr><td><mark class="hl hl-yellow" data-highlight="t" id="highlight-t">a</mark></td>\n<td><mark class="hl hl-yellow" data-highlight="t">b</mark></td></tr></table>',
    )
  })

  for (const [name, html] of Object.entries(ARTICLE_FIXTURES))
    test(`each highlight covers exactly its passage: ${name}`, () => {
      const text = articleText(html)
      // Every single character, every pair, and random overlapping passages.
      const single: MarkedHighlight[] = []
      for (let start = 0; start < text.length; start++) {
        if (/[\uDC00-\uDFFF]/.test(text[start]!)) continue
        const end = /[\uD800-\uDBFF]/.test(text[start]!) ? start + 2 : start + 1
        single.push({ id: `c${start}`, color: 'yellow', position: { start, end } })
      }
      checkMarks(html, single)
      checkMarks(html, randomHighlights(text, text.length, 40))
      checkMarks(html, [{ id: 'all', color: 'purple', position: { start: 0, end: text.length } }])
    })

  test('a passage within one paragraph is the text of its marks, whitespace collapsed', () => {
    for (const html of Object.values(ARTICLE_FIXTURES)) {
      const text = articleText(html)
      for (const highlight of randomHighlights(text, 7, 60)) {
        const passage = text.slice(highlight.position!.start, highlight.position!.end)
        if (passage.includes('\n') || passage.trim() !== passage) continue
        const marked = markArticle(html, [highlight], text)
        const shown = marksText(marked, highlight.id).join('').replace(/\s+/g, ' ').trim()
        // Text in a table row's cells comes with the cell's space, which no mark holds.
        if (/<t[dh]\b/.test(html)) assert.equal(shown.replace(/ /g, ''), passage.replace(/ /g, ''))
        else assert.equal(shown, passage, JSON.stringify(passage))
      }
    }
  })

  test('random articles and random overlapping passages', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const html = randomArticle(seed)
      const text = articleText(html)
      checkMarks(html, randomHighlights(text, seed, 12))
    }
  })

  test('the pipeline’s own sanitized HTML', () => {
    const dirty = `<div><h1>Title</h1><p class="x" style="color:red">Text with <b>bold</b>, <i>italic</i>,
      <span>a span</span> &amp; a <a href="/rel">relative link</a>.</p><script>alert(1)</script>
      <table><tr><td>cell&nbsp;1</td><td>cell 2</td></tr></table><pre>  code\n    more</pre></div>`
    const html = sanitizeArticle(dirty, 'https://example.com/post')
    const text = articleText(html)
    checkMarks(html, randomHighlights(text, 3, 30))
  })

  test('orphans, offsets past the text and empty passages get no mark; neither does a text that is not the stored one', () => {
    const html = '<p>short text</p>'
    const none: MarkedHighlight[] = [
      { id: 'o', color: 'yellow', position: null },
      { id: 'past', color: 'yellow', position: { start: 3, end: 99 } },
      { id: 'empty', color: 'yellow', position: { start: 3, end: 3 } },
    ]
    assert.equal(markArticle(html, none), html)
    assert.equal(markArticle(html, []), html)
    const one: MarkedHighlight[] = [{ id: 'ok', color: 'yellow', position: { start: 0, end: 5 } }]
    assert.notEqual(markArticle(html, one, 'short text'), html)
    assert.equal(markArticle(html, one, 'another text'), html)
  })

  test('only ids and known colours become markup', () => {
    const html = '<p>abc</p>'
    const marked = markArticle(html, [
      { id: '"><img src=x onerror=alert(1)>', color: 'red" onclick="x', position: { start: 0, end: 2 } },
    ])
    assert.equal(
      marked,
      '<p><mark class="hl hl-yellow" data-highlight="&#34;&#62;&#60;img src=x onerror=alert(1)&#62;" id="highlight-&#34;&#62;&#60;img src=x onerror=alert(1)&#62;">ab</mark>c</p>',
    )
  })

  test('a position inside a surrogate pair keeps the character whole and the HTML well formed', () => {
    const html = '<p>a&#x1F600;b 😀c</p>'
    const text = articleText(html)
    const marked = markArticle(html, [
      { id: 'l', color: 'yellow', position: { start: 2, end: 3 } },
      { id: 'r', color: 'green', position: { start: 6, end: 7 } },
    ])
    assert.equal(articleText(marked), text)
    coveredOffsets(marked)
  })
})
