import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { articleMarkdown } from '../../../core/reading/markdown.ts'
import { sanitizeArticle } from '../../../core/reading/sanitize-article.ts'
import { XSS_VECTORS } from '../../fixtures/xss/vectors.ts'

const REL = 'rel="noopener noreferrer nofollow"'

describe('articleMarkdown()', () => {
  const cases: readonly [name: string, html: string, markdown: string][] = [
    ['ATX headings', '<h1>Title</h1><h2>Sub</h2><h6>Six</h6><p>Text</p>', '# Title\n\n## Sub\n\n###### Six\n\nText'],
    [
      'fenced code keeps its indentation and its markup characters',
      '<pre><code>const a = 1\n  if (a &lt; b &amp;&amp; *p) {\n    [x](y)\n  }</code></pre>',
      '```\nconst a = 1\n  if (a < b && *p) {\n    [x](y)\n  }\n```',
    ],
    ['a fence inside code gets a longer fence', '<pre><code>```\nx\n```</code></pre>', '````\n```\nx\n```\n````'],
    ['inline code', '<p>Run <code>npm i &lt;pkg&gt;</code> now</p>', 'Run `npm i <pkg>` now'],
    ['inline code holding a backtick', '<p><code>a`b</code></p>', '``a`b``'],
    [
      '- bullets, nested',
      '<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>',
      '-   one\n-   two\n    -   nested',
    ],
    ['ordered lists keep their start', '<ol start="3"><li>three</li><li>four</li></ol>', '3.  three\n4.  four'],
    [
      'links with and without title; a link without href is its text',
      `<p><a href="https://example.com/a" ${REL}>link</a>, <a href="https://example.com/b" title="T" ${REL}>titled</a> and <a>bare</a></p>`,
      '[link](https://example.com/a), [titled](https://example.com/b "T") and bare',
    ],
    [
      'parentheses in a link destination are escaped',
      `<p><a href="https://example.com/a_(b)" ${REL}>x</a></p>`,
      '[x](https://example.com/a_\\(b\\))',
    ],
    ['_emphasis_ and **strong**', '<p><em>em</em> and <strong>strong</strong></p>', '_em_ and **strong**'],
    [
      'blockquote, rule and line break',
      '<blockquote><p>q</p></blockquote><hr /><p>a<br />b</p>',
      '> q\n\n---\n\na  \nb',
    ],
    [
      'tables stay HTML',
      '<table><thead><tr><th colspan="2">H</th></tr></thead><tbody><tr><td>a</td><td><ul><li>x</li></ul></td></tr></tbody></table>',
      '<table><thead><tr><th colspan="2">H</th></tr></thead><tbody><tr><td>a</td><td><ul><li>x</li></ul></td></tr></tbody></table>',
    ],
    [
      'remote images stay images',
      '<figure><img alt="A chart" title="Q1" src="https://example.com/a.png" /><figcaption>Cap</figcaption></figure>',
      '![A chart](https://example.com/a.png "Q1")\n\nCap',
    ],
    [
      'data: images become their alt text',
      '<p>Before <img alt="a red dot" src="data:image/png;base64,iVBORw0KGgo=" /> after</p>',
      'Before a red dot after',
    ],
    ['a data: image without alt text leaves nothing', '<p>x<img src="data:image/png;base64,iVBORw0KGgo=" /></p>', 'x'],
    [
      'Markdown characters in text are escaped',
      '<p>*not em* _not em_ [not](a link) `not code` back\\slash</p>',
      '\\*not em\\* \\_not em\\_ \\[not\\](a link) \\`not code\\` back\\\\slash',
    ],
    [
      'block markers at the start of a paragraph are escaped',
      '<p>- not a bullet</p><p>+ not either</p><p>1. not a list</p><p># not a heading</p><p>&gt; not a quote</p>',
      '\\- not a bullet\n\n\\+ not either\n\n1\\. not a list\n\n\\# not a heading\n\n\\> not a quote',
    ],
    [
      'text that looks like HTML stays text',
      '<p>&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt;</p>',
      '\\<img src=x onerror=alert(1)> and \\<script>alert(2)\\</script>',
    ],
    [
      'text that looks like an autolink stays text',
      '<p>&lt;https://evil.example/&gt;</p>',
      '\\<https://evil.example/>',
    ],
    [
      'text that looks like an entity stays text',
      '<p>write &amp;lt; for &lt; &amp; AT&amp;T</p>',
      'write \\&lt; for \\< & AT&T',
    ],
    [
      'alt text that looks like HTML stays text',
      '<p><img alt="&lt;img src=x onerror=alert(1)&gt;" src="data:image/png;base64,iVBORw0KGgo=" /><img alt="&lt;b&gt;*x*" src="https://example.com/a.png" /></p>',
      '\\<img src=x onerror=alert(1)>![\\<b>\\*x\\*](https://example.com/a.png)',
    ],
    [
      'a title with quotes stays inside its quotes',
      '<p><img alt="x" title="say &quot;hi&quot; \\" src="https://example.com/a.png" /></p>',
      '![x](https://example.com/a.png "say \\"hi\\" \\\\")',
    ],
    ['nothing gives nothing', '', ''],
  ]
  for (const [name, html, markdown] of cases) {
    test(name, () => {
      assert.equal(articleMarkdown(html), markdown)
    })
  }

  test('is the same on a second call (the converter is shared)', () => {
    const html = '<h2>A</h2><p>b <em>c</em></p>'
    assert.equal(articleMarkdown(html), articleMarkdown(html))
  })
})

/**
 * The Markdown of sanitized HTML outside code, link titles and the kept tables: what a Markdown renderer parses
 * as inline Markdown (and inline HTML). A link title is a literal string, and code shows what it holds.
 */
function markdownProse(markdown: string): string {
  return markdown
    .replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '')
    .replace(/<table>[\s\S]*?<\/table>/g, '')
    .replace(/ "(?:[^"\\]|\\.)*"\)/g, ')')
    .replace(/(?<![`\\])(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, '')
}

describe('articleMarkdown() of the sanitized XSS corpus', () => {
  test('no raw HTML outside the kept tables, and no script link', () => {
    for (const vector of XSS_VECTORS) {
      const markdown = articleMarkdown(sanitizeArticle(vector.html, 'https://example.com/post/'))
      const prose = markdownProse(markdown)
      assert.ok(!/(?<!\\)</.test(prose), `${vector.name}: ${markdown}`)
      assert.ok(!/\]\(\s*<?\s*(?:javascript|vbscript|data):/i.test(prose), `${vector.name}: ${markdown}`)
    }
  })
})
