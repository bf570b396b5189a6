import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createPageExtractor, extractPage, metadataFromUrl } from '../../../core/enrichment/extract-page.ts'

const URL_ = 'https://example.com/blog/post'
const page = (head: string, body = ''): string => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`
const extract = (head: string, body = '') => extractPage(page(head, body), URL_)

describe('extractPage() text fields', () => {
  test('extractPage() prefers og:title, then twitter:title, then <title>', () => {
    const all =
      '<title>Plain</title><meta name="twitter:title" content="Twitter"><meta property="og:title" content="Open Graph">'
    assert.equal(extract(all).title, 'Open Graph')
    assert.equal(extract('<title>Plain</title><meta name="twitter:title" content="Twitter">').title, 'Twitter')
    assert.equal(extract('<title>Plain</title>').title, 'Plain')
    assert.equal(extract('').title, null)
  })

  test('extractPage() skips an empty og:title for the next source', () => {
    assert.equal(extract('<meta property="og:title" content="  "><title>Plain</title>').title, 'Plain')
    assert.equal(extract('<meta property="og:title" content="&#1;&#2;"><title>Plain</title>').title, 'Plain')
  })

  test('extractPage() accepts og: and twitter: keys in name or property, in any case', () => {
    assert.equal(extract('<META NAME="OG:TITLE" CONTENT="Named">').title, 'Named')
    assert.equal(extract('<meta property="Twitter:Description" content="Tweeted">').description, 'Tweeted')
    assert.equal(extract('<meta Property="og:site_name" Content="Site">').siteName, 'Site')
  })

  test('extractPage() prefers og:description, then twitter:description, then meta description', () => {
    const all =
      '<meta name="description" content="Meta"><meta name="twitter:description" content="Twitter"><meta property="og:description" content="OG">'
    assert.equal(extract(all).description, 'OG')
    assert.equal(
      extract('<meta name="description" content="Meta"><meta name="twitter:description" content="Twitter">')
        .description,
      'Twitter',
    )
    assert.equal(extract('<meta name="description" content="Meta">').description, 'Meta')
  })

  test('extractPage() uses application-name when there is no og:site_name', () => {
    assert.equal(extract('<meta name="application-name" content="App">').siteName, 'App')
    assert.equal(
      extract('<meta name="application-name" content="App"><meta property="og:site_name" content="OG">').siteName,
      'OG',
    )
  })

  test('extractPage() collapses whitespace and strips control characters', () => {
    const metadata = extract(
      '<title>\n  Tabs\tand\r\n  lines \u0007bell\u0000 \u007f\u0085del  </title><meta name="description" content=" a \u0001 b\u009f ">',
    )
    assert.equal(metadata.title, 'Tabs and lines bell del')
    assert.equal(metadata.description, 'a b')
  })

  test('extractPage() decodes character references once', () => {
    const metadata = extract(
      '<title>Tom &amp; Jerry&#8217;s &quot;show&quot; &amp;amp; &eacute;</title><meta property="og:description" content="R&amp;D &#x2014; &lt;b&gt;">',
    )
    assert.equal(metadata.title, 'Tom & Jerry’s "show" &amp; é')
    assert.equal(metadata.description, 'R&D — <b>')
  })

  test('extractPage() caps the title at 500 and the description at 1000 characters', () => {
    const metadata = extract(
      `<title>${'word '.repeat(200)}</title><meta name="description" content="${'x'.repeat(1500)}">`,
    )
    assert.equal(metadata.title?.length, 499) // 500 characters ends on a space, which is trimmed
    assert.equal(metadata.description?.length, 1000)
  })

  test('extractPage() ignores a <title> inside an SVG', () => {
    assert.equal(
      extractPage('<html><body><svg><title>Icon</title></svg><title>Real</title></body></html>', URL_).title,
      'Real',
    )
  })
})

describe('extractPage() URLs', () => {
  test('extractPage() resolves og:image, canonical and icons against the page URL', () => {
    const metadata = extract(
      '<meta property="og:image" content="../img/a.png"><link rel="canonical" href="/blog/post#top"><link rel="icon" href="fav.png">',
    )
    assert.equal(metadata.imageUrl, 'https://example.com/img/a.png')
    assert.equal(metadata.canonicalUrl, 'https://example.com/blog/post#top')
    assert.equal(metadata.faviconUrl, 'https://example.com/blog/fav.png')
  })

  test('extractPage() resolves against the first <base href>, even for links written before it', () => {
    const metadata = extract(
      '<link rel="icon" href="i.png"><base href="https://cdn.example.net/assets/"><base href="/ignored/"><meta property="og:image" content="og.png">',
    )
    assert.equal(metadata.faviconUrl, 'https://cdn.example.net/assets/i.png')
    assert.equal(metadata.imageUrl, 'https://cdn.example.net/assets/og.png')
  })

  test('extractPage() ignores a <base href> that is not http(s)', () => {
    assert.equal(
      extract('<base href="javascript:alert(1)//"><meta property="og:image" content="a.png">').imageUrl,
      'https://example.com/blog/a.png',
    )
  })

  test('extractPage() drops javascript:, data: and other non-http URLs and takes the next candidate', () => {
    const metadata = extract(
      '<meta property="og:image" content="javascript:alert(1)"><meta property="og:image" content="data:image/png;base64,AAAA">' +
        '<meta name="twitter:image" content="ftp://example.com/a.png"><meta name="twitter:image:src" content="https://img.example.com/ok.png">' +
        '<link rel="canonical" href="javascript:void(0)"><meta property="og:url" content="https://example.com/canonical">' +
        '<link rel="icon" href="data:,"><link rel="icon" href=" JaVaScRiPt:x">',
    )
    assert.equal(metadata.imageUrl, 'https://img.example.com/ok.png')
    assert.equal(metadata.canonicalUrl, 'https://example.com/canonical')
    assert.equal(metadata.faviconUrl, 'https://example.com/favicon.ico')
  })

  test('extractPage() takes og:image before twitter:image', () => {
    assert.equal(
      extract('<meta name="twitter:image" content="/t.png"><meta property="og:image" content="/o.png">').imageUrl,
      'https://example.com/o.png',
    )
  })

  test('extractPage() uses og:url as the canonical URL when there is no canonical link', () => {
    assert.equal(
      extract('<meta property="og:url" content="https://example.com/c">').canonicalUrl,
      'https://example.com/c',
    )
    assert.equal(
      extract('<meta property="og:url" content="https://example.com/c"><link rel="canonical" href="/l">').canonicalUrl,
      'https://example.com/l',
    )
  })
})

describe('extractPage() favicons', () => {
  const light = '<link rel="icon" href="/light.png" media="(prefers-color-scheme: light)">'
  const dark = '<link rel="icon" href="/dark.png" media="( prefers-color-scheme :dark )">'
  const apple = '<link rel="apple-touch-icon" href="/apple.png">'

  test('extractPage() takes the first icon without a color scheme as the favicon, whatever its order', () => {
    const metadata = extract(
      `${light}${dark}<link rel="shortcut icon" href="/plain.ico"><link rel="icon" href="/second.png">${apple}`,
    )
    assert.equal(metadata.faviconUrl, 'https://example.com/plain.ico')
    assert.equal(metadata.faviconLightUrl, 'https://example.com/light.png')
    assert.equal(metadata.faviconDarkUrl, 'https://example.com/dark.png')
  })

  test('extractPage() falls back from light to dark to apple-touch-icon to /favicon.ico', () => {
    assert.equal(extract(`${apple}${dark}${light}`).faviconUrl, 'https://example.com/light.png')
    assert.equal(extract(`${apple}${dark}`).faviconUrl, 'https://example.com/dark.png')
    assert.equal(extract(apple).faviconUrl, 'https://example.com/apple.png')
    assert.equal(
      extract('<link rel="stylesheet" href="/s.css"><link rel="mask-icon" href="/mask.svg">').faviconUrl,
      'https://example.com/favicon.ico',
    )
  })

  test('extractPage() treats rel as a case-insensitive token list', () => {
    assert.equal(extract('<link rel="Shortcut  ICON" href="/a.ico">').faviconUrl, 'https://example.com/a.ico')
    assert.equal(extract('<link rel="iconic" href="/b.ico">').faviconUrl, 'https://example.com/favicon.ico')
  })

  test('extractPage() puts the default favicon at the origin of the final URL, not the base', () => {
    assert.equal(
      extractPage(page('<base href="https://cdn.example.net/">'), 'https://example.com:8443/a/b').faviconUrl,
      'https://example.com:8443/favicon.ico',
    )
  })
})

describe('extractPage() preview summary', () => {
  test('extractPage() reads the body text, skipping navigation, scripts, styles and forms', () => {
    const body =
      '<nav>Home About</nav><header>Site header</header><script>var x = "script text"</script><style>p{color:red}</style>' +
      '<p>First <b>bold</b>paragraph.</p><noscript>Enable JS</noscript><form><label>Email</label><button>Go</button></form>' +
      '<template><p>template</p></template><svg><text>svg</text></svg><select><option>One</option></select>' +
      '<div hidden>hidden</div><div aria-hidden="true">aria</div><div role="navigation">menu</div><p>Second<br>line.</p>' +
      '<aside>Sidebar</aside><footer>Footer</footer>'
    assert.equal(extract('', body).previewSummary, 'First boldparagraph. Second line.')
  })

  test('extractPage() prefers the text of <article> or <main> over the rest of the body', () => {
    assert.equal(
      extract('', '<div>Teaser before</div><article><p>The article.</p></article><p>After</p>').previewSummary,
      'The article.',
    )
    assert.equal(
      extract('', '<p>Intro</p><main><p>Main text.</p><article><p>Nested.</p></article></main>').previewSummary,
      'Main text. Nested.',
    )
  })

  test('extractPage() skips an empty <article> for the next region', () => {
    assert.equal(
      extract('', '<article><img src="a.png"></article><p>Between</p><article><p>Real text.</p></article>')
        .previewSummary,
      'Real text.',
    )
  })

  test('extractPage() leaves the <h1> and bylines out of the summary', () => {
    assert.equal(
      extract('', '<article><h1>Headline</h1><p class="byline">By Someone</p><p>Body text.</p></article>')
        .previewSummary,
      'Body text.',
    )
  })

  test('extractPage() hides boilerplate class names only as whole names, never on <body>', () => {
    assert.equal(
      extractPage('<html><body class="comments-open"><div class="comments-area">Text</div></body></html>', URL_)
        .previewSummary,
      'Text',
    )
  })

  test('extractPage() cuts a long summary at a word boundary with an ellipsis, within 300 characters', () => {
    const words = Array.from({ length: 120 }, (_, index) => `word${index}`).join(' ')
    const summary = extract('', `<p>${words}</p>`).previewSummary ?? ''
    assert.ok(summary.length <= 300)
    assert.ok(summary.endsWith('…'))
    const kept = summary.slice(0, -1).split(' ')
    assert.deepEqual(kept, words.split(' ').slice(0, kept.length))
    // word0…word9 take 5 characters, word10… take 6, plus one space between: 44 words are 297 characters, 45 are 304.
    assert.equal(kept.length, 44)
  })

  test('extractPage() gives a summary of exactly 300 characters as is', () => {
    const text = `${'abcd '.repeat(59)}abcde`
    assert.equal(text.length, 300)
    assert.equal(extract('', `<p>${text}</p>`).previewSummary, text)
  })

  test('extractPage() has no summary for a body without readable text', () => {
    assert.equal(
      extract('<meta name="description" content="Described">', '<script>x()</script><nav>Menu</nav>').previewSummary,
      null,
    )
  })
})

describe('extractPage() type', () => {
  const article = '<meta property="og:type" content="article">'
  const ldArticle =
    '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle"}</script>'

  test('extractPage() reads video from og:type video.* and from a known video host', () => {
    assert.equal(extract('<meta property="og:type" content="video.episode">').type, 'video')
    assert.equal(extract('<meta property="og:type" content="VIDEO">').type, 'video')
    assert.equal(extractPage(page(article), 'https://www.youtube.com/watch?v=abc').type, 'video')
    assert.equal(extract('<meta property="og:type" content="videogame">').type, 'website')
  })

  test('extractPage() reads repository from the final or canonical URL', () => {
    assert.equal(extractPage(page(article), 'https://github.com/owner/repo').type, 'repository')
    assert.equal(extract('<link rel="canonical" href="https://codeberg.org/owner/repo">').type, 'repository')
    assert.equal(extract('<link rel="canonical" href="https://github.com/owner">').type, 'website')
  })

  test('extractPage() reads repository from schema.org SoftwareSourceCode in JSON-LD or microdata', () => {
    assert.equal(
      extract('<script type="application/ld+json">{"@graph":[{"@type":["Thing","SoftwareSourceCode"]}]}</script>').type,
      'repository',
    )
    assert.equal(
      extract('', '<div itemscope itemtype="https://schema.org/SoftwareSourceCode"><p>x</p></div>').type,
      'repository',
    )
    assert.equal(
      extract(article, '<script type="application/ld+json">{"@type":"SoftwareSourceCode"}</script>').type,
      'repository',
    )
  })

  test('extractPage() reads article from og:type article', () => {
    assert.equal(extract(article).type, 'article')
  })

  test('extractPage() reads article from an <article> with a schema.org Article type', () => {
    assert.equal(extract(ldArticle, '<article><p>Text</p></article>').type, 'article')
    assert.equal(
      extract('', '<article itemscope itemtype="http://schema.org/BlogPosting"><p>Text</p></article>').type,
      'article',
    )
    assert.equal(
      extract(
        '<script type="application/ld+json">[{"@type":"WebPage","mainEntity":{"@type":"schema:TechArticle"}}]</script>',
        '<article>x</article>',
      ).type,
      'article',
    )
  })

  test('extractPage() needs both the <article> and the schema type', () => {
    assert.equal(extract(ldArticle, '<div><p>Text</p></div>').type, 'website')
    assert.equal(extract('', '<article><p>Card</p></article><article><p>Card</p></article>').type, 'website')
  })

  test('extractPage() ignores JSON-LD it cannot parse and JSON-LD in a <template>', () => {
    assert.equal(
      extract('<script type="application/ld+json">{"@type": "Article",</script>', '<article>x</article>').type,
      'website',
    )
    assert.equal(
      extract(
        '',
        '<template><script type="application/ld+json">{"@type":"Article"}</script></template><article>x</article>',
      ).type,
      'website',
    )
  })

  test('extractPage() tolerates raw line breaks inside JSON-LD strings', () => {
    assert.equal(
      extract(
        '<script type="application/ld+json">{"@type":"Article","headline":"two\nlines"}</script>',
        '<article>x</article>',
      ).type,
      'article',
    )
  })
})

describe('extractPage() robustness', () => {
  test('extractPage() reads a page with no head at all', () => {
    const metadata = extractPage(
      '<title>Bare</title><meta property="og:image" content="/i.png"><p>Just text.</p>',
      URL_,
    )
    assert.equal(metadata.title, 'Bare')
    assert.equal(metadata.imageUrl, 'https://example.com/i.png')
    assert.equal(metadata.previewSummary, 'Just text.')
  })

  test('extractPage() reads text with no markup at all', () => {
    assert.equal(extractPage('  plain   words\n', URL_).previewSummary, 'plain words')
  })

  test('extractPage() reads body text a page forgot to put after </head>', () => {
    assert.equal(
      extractPage('<html><head><title>T</title><p>Stray paragraph.</p>', URL_).previewSummary,
      'Stray paragraph.',
    )
  })

  test('extractPage() never throws on malformed markup', () => {
    const inputs = [
      '',
      '<',
      '<<<>>>',
      '<html',
      '<title>unclosed',
      '<meta content="x" property="og:title"',
      '</p></div></body>',
      '<script type="application/ld+json">{{{{',
      '<div><span><article><p>deep',
      '<!-- unterminated',
      '<![CDATA[ x',
      '<a href="&#xD800;">&#0;&#xFFFFFF;</a>',
      '<p title="unterminated>text',
      '\u0000\u0001<b>\uD800</b>',
      '<base href="http://[::1">',
      '<link rel=icon href="http://a b">',
      `<div>${'<i>'.repeat(5000)}deep`,
    ]
    for (const html of inputs) assert.doesNotThrow(() => extractPage(html, URL_), html)
    assert.equal(extractPage('<title>unclosed', URL_).title, 'unclosed')
    assert.equal(extractPage('<div><span><article><p>deep', URL_).previewSummary, 'deep')
  })

  test('extractPage() classifies tags from the title, description and final URL', () => {
    const metadata = extractPage(
      page('<title>Security of a Postgres database</title>'),
      'https://example.com/typescript/guide',
    )
    assert.deepEqual(metadata.tags, ['typescript', 'security', 'backend'])
  })
})

describe('metadataFromUrl()', () => {
  test('metadataFromUrl() names a PDF by its decoded file name', () => {
    assert.deepEqual(metadataFromUrl('https://files.example.com/reports/annual%20report%202024.pdf?download=1'), {
      title: 'annual report 2024.pdf',
      description: null,
      siteName: null,
      faviconUrl: 'https://files.example.com/favicon.ico',
      faviconLightUrl: null,
      faviconDarkUrl: null,
      imageUrl: null,
      canonicalUrl: null,
      previewSummary: null,
      type: 'website',
      tags: [],
    })
  })

  test('metadataFromUrl() guesses the type and tags from the URL', () => {
    const metadata = metadataFromUrl('https://github.com/owner/repo/raw/main/docs/security-audit.pdf')
    assert.equal(metadata.type, 'repository')
    assert.equal(metadata.title, 'security-audit.pdf')
    assert.deepEqual(metadata.tags, ['security'])
  })

  test('metadataFromUrl() has no title for a root URL or a malformed escape stays as written', () => {
    assert.equal(metadataFromUrl('https://example.com/').title, null)
    assert.equal(metadataFromUrl('https://example.com/a/%E0%A4%A.png').title, '%E0%A4%A.png')
  })

  test('metadataFromUrl() gives nothing but the type for something that is not a URL', () => {
    const metadata = metadataFromUrl('not a url')
    assert.equal(metadata.title, null)
    assert.equal(metadata.faviconUrl, null)
    assert.equal(metadata.type, 'website')
  })
})

test('createPageExtractor() drops a JSON-LD block over 512 KiB whole, not just its start', () => {
  const extractor = createPageExtractor(URL_)
  extractor.write(`<script type="application/ld+json">{"x":"${' '.repeat(512 * 1024)}"}`)
  // On its own this second text event is valid JSON-LD, but it is the tail of the oversized block.
  extractor.write('{"@type":"SoftwareSourceCode"}</script><p>Text</p>')
  const metadata = extractor.finish()
  assert.equal(metadata.type, 'website')
  assert.equal(metadata.previewSummary, 'Text')
})
