import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Parser } from 'htmlparser2'
import { ARTICLE_TAGS, httpUrl, sanitizeArticle } from '../../../core/reading/sanitize-article.ts'
import { XSS_VECTORS } from '../../fixtures/xss/vectors.ts'

const BASE = 'https://example.com/post/'

// The allowlist as docs/reading.md#sanitizing states it, written out here rather than read from the code, so
// that a tag or attribute added to the sanitizer without the docs fails these tests.
const TAGS = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'p',
  'br',
  'hr',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'figure',
  'figcaption',
  'pre',
  'code',
  'blockquote',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'em',
  'strong',
  'sub',
  'sup',
])
const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title', 'rel'],
  img: ['src', 'alt', 'title', 'width', 'height'],
  th: ['colspan', 'rowspan', 'scope'],
  td: ['colspan', 'rowspan'],
  ol: ['start'],
}
const REL = 'noopener noreferrer nofollow'
// Raster images only; `image/jpg` is the common misspelling of JPEG.
const DATA_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp|avif|bmp);base64,[a-z0-9+/=\s]*$/i

function isWebUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value)
    return protocol === 'http:' || protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * What is wrong with sanitized output, as a list of problems (empty when it is safe). Two independent reads:
 * 1. The serialized text itself must be nothing but `<tag attr="…">`, `</tag>` and text without `<` or `>`,
 *    with only allowlisted tags and attributes. No comment, CDATA, doctype or raw-text element can hide in
 *    output of that shape, so any HTML parser (a browser's included) sees the same elements.
 * 2. htmlparser2 parses it again (entities decoded) and every element, attribute and URL is checked.
 */
function problems(html: string): string[] {
  const found: string[] = []
  // 1. The shape of the serialized output.
  const token = /<(\/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+="[^"<>]*")*)\s*(\/?)>|[^<>]+/y
  let at = 0
  while (at < html.length) {
    token.lastIndex = at
    const match = token.exec(html)
    if (!match) {
      found.push(`unexpected markup at ${at}: ${JSON.stringify(html.slice(at, at + 40))}`)
      break
    }
    at = token.lastIndex
    const [, , tag, attrs] = match
    if (tag === undefined) continue
    if (!TAGS.has(tag)) found.push(`serialized tag <${tag}>`)
    for (const [, name] of (attrs ?? '').matchAll(/\s+([a-z-]+)="[^"]*"/g)) {
      if (!ATTRIBUTES[tag]?.includes(name!)) found.push(`serialized attribute ${tag} ${name}`)
    }
  }
  // 2. Parsed again.
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (!TAGS.has(name)) found.push(`element <${name}>`)
        for (const [attr, value] of Object.entries(attribs)) {
          if (attr.startsWith('on')) found.push(`event handler ${name} ${attr}`)
          if (attr === 'style' || attr === 'srcset' || attr.includes(':')) found.push(`attribute ${name} ${attr}`)
          if (!ATTRIBUTES[name]?.includes(attr)) found.push(`attribute ${name} ${attr} not allowed`)
          if (attr === 'href' || attr === 'src') {
            const url = value.trim()
            const web = /^https?:/i.test(url) && isWebUrl(url)
            const image = name === 'img' && attr === 'src' && DATA_IMAGE.test(url)
            if (!web && !image) found.push(`${name} ${attr}=${JSON.stringify(value.slice(0, 60))}`)
          }
          if (attr === 'rel' && value !== REL) found.push(`rel=${JSON.stringify(value)}`)
        }
        if (name === 'a' && attribs.href !== undefined && attribs.rel !== REL) found.push('link without rel')
        if (name === 'img' && !attribs.src) found.push('img without src')
      },
      oncomment: () => {
        found.push('comment')
      },
      oncdatastart: () => {
        found.push('CDATA')
      },
      onprocessinginstruction: (name) => {
        found.push(`processing instruction ${name}`)
      },
    },
    { decodeEntities: true, lowerCaseTags: false, lowerCaseAttributeNames: false },
  )
  parser.write(html)
  parser.end()
  return found
}

describe('sanitizeArticle() against the XSS corpus', () => {
  test('the corpus holds the three sources, and every vector has a unique name', () => {
    const sources = new Map<string, number>()
    for (const vector of XSS_VECTORS) sources.set(vector.source, (sources.get(vector.source) ?? 0) + 1)
    assert.deepEqual(
      [...sources.keys()],
      ['OWASP XSS Filter Evasion Cheat Sheet', 'DOMPurify test/fixtures/expect.mjs', 'Readlater (hand-written)'],
    )
    for (const count of sources.values()) assert.ok(count >= 100, `${count} vectors`)
    assert.equal(new Set(XSS_VECTORS.map((vector) => vector.name)).size, XSS_VECTORS.length)
  })

  test('the checker itself catches what it must', () => {
    assert.deepEqual(problems('<p>ok <a href="https://x.example/" rel="noopener noreferrer nofollow">x</a></p>'), [])
    assert.ok(problems('<script>alert(1)</script>').length > 0)
    assert.ok(problems('<img src="x" onerror="alert(1)">').length > 0)
    assert.ok(problems('<a href=" javascript:alert(1)" rel="noopener noreferrer nofollow">x</a>').length > 0)
    assert.ok(problems('<a href="jav&#x09;ascript:alert(1)" rel="noopener noreferrer nofollow">x</a>').length > 0)
    assert.ok(problems('<img src="data:image/svg+xml;base64,PHN2Zy8+">').length > 0)
    assert.ok(problems('<p style="x">x</p>').length > 0)
    assert.ok(problems('<p>a<!--x--></p>').length > 0)
    assert.ok(problems('<p title="x">x</p>').length > 0)
    assert.ok(problems('<p>1 > 0</p>').length > 0)
  })

  for (const vector of XSS_VECTORS) {
    test(`${vector.source}: ${vector.name}`, () => {
      const clean = sanitizeArticle(vector.html, BASE)
      assert.deepEqual(problems(clean), [], clean)
      // Sanitizing is stable: the output is a fixed point, so nothing is left for a second pass to uncover.
      assert.equal(sanitizeArticle(clean, BASE), clean)
    })
  }
})

describe('sanitizeArticle() on specific attacks', () => {
  const cases: readonly [name: string, html: string, expected: string][] = [
    ['mixed-case script', '<p>a</p><ScRiPt>alert(1)</sCrIpT><p>b</p>', '<p>a</p><p>b</p>'],
    [
      'event handler with odd spacing',
      '<img src=https://example.com/a.png onerror  =  "alert(1)">',
      '<img src="https://example.com/a.png" />',
    ],
    ['href javascript: after spaces', '<a href="  javascript:alert(1)">x</a>', '<a>x</a>'],
    ['href jav&#x09;ascript:', '<a href="jav&#x09;ascript:alert(1)">x</a>', '<a>x</a>'],
    ['href &#106;avascript&colon;', '<a href="&#106;avascript&colon;alert(1)">x</a>', '<a>x</a>'],
    ['href JaVaScRiPt: with a newline', '<a href="JaVa\nScRiPt:alert(1)">x</a>', '<a>x</a>'],
    ['href vbscript:', '<a href="vbscript:msgbox(1)">x</a>', '<a>x</a>'],
    ['href data:text/html', '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', '<a>x</a>'],
    ['img src javascript: is dropped with the img', '<p>a<img src="javascript:alert(1)" alt="x">b</p>', '<p>ab</p>'],
    [
      'img srcset is dropped, src kept',
      '<img src="a.png" srcset="javascript:alert(1) 2x">',
      '<img src="https://example.com/post/a.png" />',
    ],
    ['img with only srcset is dropped', '<p><img srcset="https://example.com/a.png 1x">x</p>', '<p>x</p>'],
    ['img data:image/svg+xml is dropped', '<img src="data:image/svg+xml;base64,PHN2Zy8+" alt="x">', ''],
    [
      'base href is dropped',
      '<base href="javascript:alert(1)//"><a href="x">x</a>',
      '<a href="https://example.com/post/x" rel="noopener noreferrer nofollow">x</a>',
    ],
    ['meta refresh is dropped', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><p>x</p>', '<p>x</p>'],
    [
      'iframe goes with its content',
      '<p>a</p><iframe src="javascript:alert(1)"><a href="https://evil.example/">b</a></iframe><p>c</p>',
      '<p>a</p><p>c</p>',
    ],
    [
      'object and embed go',
      '<object data="x"><p>fallback</p></object><embed src="javascript:alert(1)"><p>c</p>',
      '<p>c</p>',
    ],
    [
      'form is unwrapped, its controls go',
      '<form action="javascript:alert(1)"><p>text</p><input name=q><button>go</button></form>',
      '<p>text</p>',
    ],
    [
      'style element and attribute go',
      '<style>p{x:expression(alert(1))}</style><p style="background:url(javascript:alert(1))">x</p>',
      '<p>x</p>',
    ],
    [
      'svg goes with its content',
      '<p>a</p><svg onload=alert(1)><a xlink:href="javascript:alert(1)"><text>t</text></a></svg><p>b</p>',
      '<p>a</p><p>b</p>',
    ],
    [
      'svg animate/set go',
      '<svg><a><animate attributeName=href values=javascript:alert(1) /><set attributeName=href to=javascript:alert(1) />x</a></svg>',
      '',
    ],
    ['MathML mutation XSS goes whole', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
    [
      'noscript goes whole',
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript><p>x</p>',
      '<p>x</p>',
    ],
    ['template goes whole', '<template><img src=x onerror=alert(1)></template><p>x</p>', '<p>x</p>'],
    ['comment goes', '<p>a<!--<img src=x onerror=alert(1)>-->b</p>', '<p>ab</p>'],
    [
      'text that looks like markup stays text',
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    ],
    [
      'title with quotes stays inside its attribute',
      '<a href="https://example.com/" title=\'"><script>alert(1)</script>\'>x</a>',
      '<a title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" href="https://example.com/" rel="noopener noreferrer nofollow">x</a>',
    ],
    [
      'a user rel is replaced',
      '<a href="https://example.com/" rel="opener">x</a>',
      '<a href="https://example.com/" rel="noopener noreferrer nofollow">x</a>',
    ],
    [
      'a user rel does not survive on a link whose href is dropped',
      '<a href="javascript:alert(1)" rel="opener">x</a>',
      '<a>x</a>',
    ],
  ]
  for (const [name, html, expected] of cases) {
    test(name, () => {
      assert.equal(sanitizeArticle(html, BASE), expected)
    })
  }
})

describe('sanitizeArticle() keeps the article', () => {
  test('the sanitizer allows exactly the documented tags', () => {
    assert.deepEqual(new Set(ARTICLE_TAGS), TAGS)
  })

  const cases: readonly [name: string, html: string, expected: string][] = [
    [
      'headings',
      '<h1>A</h1><h2>B</h2><h3>C</h3><h4>D</h4><h5>E</h5><h6>F</h6>',
      '<h1>A</h1><h2>B</h2><h3>C</h3><h4>D</h4><h5>E</h5><h6>F</h6>',
    ],
    [
      'lists, with ol start',
      '<ul><li>a</li><li>b</li></ul><ol start="3"><li>c</li></ol>',
      '<ul><li>a</li><li>b</li></ul><ol start="3"><li>c</li></ol>',
    ],
    [
      'tables with caption, sections, colspan, rowspan and scope',
      '<table class="t"><caption>Cap</caption><thead><tr><th scope="col" colspan="2">H</th></tr></thead><tbody><tr><td rowspan="2" colspan="1" style="x">1</td><td>2</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
      '<table><caption>Cap</caption><thead><tr><th scope="col" colspan="2">H</th></tr></thead><tbody><tr><td rowspan="2" colspan="1">1</td><td>2</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
    ],
    [
      'figure and figcaption',
      '<figure><img src="https://example.com/a.png" alt="A" title="T" width="10" height="20"><figcaption>Cap</figcaption></figure>',
      '<figure><img alt="A" title="T" width="10" height="20" src="https://example.com/a.png" /><figcaption>Cap</figcaption></figure>',
    ],
    [
      'pre and code, whitespace kept',
      '<pre><code>a  &lt;b&gt;\n  c</code></pre>',
      '<pre><code>a  &lt;b&gt;\n  c</code></pre>',
    ],
    [
      'blockquote, br, hr, sub, sup',
      '<blockquote><p>q<br>r</p></blockquote><hr><p>H<sub>2</sub>O x<sup>2</sup></p>',
      '<blockquote><p>q<br />r</p></blockquote><hr /><p>H<sub>2</sub>O x<sup>2</sup></p>',
    ],
    [
      'b becomes strong and i becomes em',
      '<p><b>bold</b> <i>it</i> <strong>s</strong> <em>e</em></p>',
      '<p><strong>bold</strong> <em>it</em> <strong>s</strong> <em>e</em></p>',
    ],
    [
      'relative links and images are resolved against the base URL',
      '<p><a href="../other?q=1#f">a</a> <a href="/root">b</a> <a href="//cdn.example.net/x">c</a><img src="img/a.png" alt="i"></p>',
      '<p><a href="https://example.com/other?q=1#f" rel="noopener noreferrer nofollow">a</a> <a href="https://example.com/root" rel="noopener noreferrer nofollow">b</a> <a href="https://cdn.example.net/x" rel="noopener noreferrer nofollow">c</a><img alt="i" src="https://example.com/post/img/a.png" /></p>',
    ],
    [
      'links get rel and keep their title',
      '<a href="http://example.org/" title="T" target="_blank" class="c">x</a>',
      '<a title="T" href="http://example.org/" rel="noopener noreferrer nofollow">x</a>',
    ],
    [
      'a fragment link becomes absolute',
      '<a href="#sec">x</a>',
      '<a href="https://example.com/post/#sec" rel="noopener noreferrer nofollow">x</a>',
    ],
    [
      'data:image/png;base64 images are kept',
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">',
      '<img alt="dot" src="data:image/png;base64,iVBORw0KGgo=" />',
    ],
    [
      'data:image/jpeg;base64 images are kept',
      '<img src=" data:image/jpeg;base64,/9j/4AAQ ">',
      '<img src="data:image/jpeg;base64,/9j/4AAQ" />',
    ],
    ['data:image/svg+xml images are dropped', '<p>a<img src="data:image/svg+xml,%3Csvg%2F%3E">b</p>', '<p>ab</p>'],
    [
      'the text of dropped wrappers is kept',
      '<div class="x"><section><span style="c">one</span> <article>two</article></section> <font>three</font></div>',
      'one two three',
    ],
    [
      'script, style, svg and iframe go with their content',
      '<p>a</p><script>s()</script><style>p{}</style><svg><text>svg</text></svg><iframe>frame</iframe><p>b</p>',
      '<p>a</p><p>b</p>',
    ],
    [
      'noscript, template, textarea, select, button, math, head and title go with their content',
      '<head><title>T</title></head><noscript>n</noscript><template>t</template><textarea>ta</textarea><select><option>o</option></select><button>b</button><math><mi>m</mi></math><p>kept</p>',
      '<p>kept</p>',
    ],
    [
      'entities are kept as entities',
      '<p>Tom &amp; Jerry &lt;3 &quot;q&quot; &nbsp;é</p>',
      '<p>Tom &amp; Jerry &lt;3 "q" \u00a0é</p>',
    ],
  ]
  for (const [name, html, expected] of cases) {
    test(name, () => {
      const clean = sanitizeArticle(html, BASE)
      assert.equal(clean, expected)
      assert.deepEqual(problems(clean), [])
    })
  }

  test('httpUrl() resolves against the base and refuses other schemes', () => {
    assert.equal(httpUrl(' a/b ', BASE), 'https://example.com/post/a/b')
    assert.equal(httpUrl('HTTP://Example.COM', BASE), 'http://example.com/')
    assert.equal(httpUrl('java\tscript:alert(1)', BASE), null)
    assert.equal(httpUrl('mailto:a@example.com', BASE), null)
    assert.equal(httpUrl('ftp://example.com/', BASE), null)
    assert.equal(httpUrl('http://[::1', BASE), null)
  })
})
