import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { articleText } from '../../../core/reading/article-text.ts'

describe('articleText()', () => {
  const cases: readonly [name: string, html: string, text: string][] = [
    ['one paragraph per block, separated by a blank line', '<p>One.</p>\n  <p>Two.</p>', 'One.\n\nTwo.'],
    [
      'inline elements do not break a paragraph',
      '<p>a <strong>b</strong>c <em>d</em> <a href="https://e.com/">e</a></p>',
      'a bc d e',
    ],
    ['runs of whitespace collapse inside a paragraph', '<p>  a \n\t b&nbsp;&nbsp;c  </p>', 'a b c'],
    ['a line break is a space outside pre', '<p>line<br />break</p>', 'line break'],
    [
      'entities are decoded',
      '<p>Tom &amp; Jerry &lt;3 &quot;q&quot; &#x1F600; &eacute;</p>',
      'Tom & Jerry <3 "q" 😀 é',
    ],
    [
      'headings, lists and quotes are blocks',
      '<h2>Title</h2><ul><li>one</li><li>two</li></ul><blockquote><p>q1</p><p>q2</p></blockquote>',
      'Title\n\none\n\ntwo\n\nq1\n\nq2',
    ],
    [
      'text between blocks is a paragraph of its own',
      '<h2>T</h2>loose text<ol><li>i</li></ol>tail',
      'T\n\nloose text\n\ni\n\ntail',
    ],
    [
      'pre keeps its lines and indentation, without the newline after <pre> or trailing space',
      '<pre>\n  line 1\n    line 2  \n\n</pre><p>after</p>',
      '  line 1\n    line 2\n\nafter',
    ],
    ['pre > code keeps blank lines', '<pre><code>a\n\n\nb</code></pre>', 'a\n\n\nb'],
    ['a line break in pre is a newline', '<pre>a<br />b</pre>', 'a\nb'],
    [
      'table rows are paragraphs, cells are separated by a space',
      '<table><caption>Cap</caption><tr><th>H1</th><th>H2</th></tr><tr><td>a</td><td>b</td></tr></table>',
      'Cap\n\nH1 H2\n\na b',
    ],
    [
      'a figure is its caption (images have no text)',
      '<figure><img alt="ALT" src="https://e.com/a.png" /><figcaption>Caption</figcaption></figure>',
      'Caption',
    ],
    ['empty blocks give no paragraph', '<p></p><p> </p><p>\n</p><p>x</p><ul><li></li></ul>', 'x'],
    [
      'wrappers a sanitizer would drop still separate blocks',
      '<div>a</div><section>b</section><article>c</article>',
      'a\n\nb\n\nc',
    ],
    ['nothing gives nothing', '', ''],
  ]
  for (const [name, html, text] of cases) {
    test(name, () => {
      assert.equal(articleText(html), text)
    })
  }
})
