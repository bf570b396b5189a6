// Articles for the tests that place highlights in article HTML (docs/highlights.md#web): the server's marks
// (core/highlights/mark-article.ts) and the reader script's offsets in Chromium must both agree with
// articleText on each of them. Sanitized-looking HTML with what makes offsets hard: character references,
// nested inline elements, lists, tables, pre, line breaks, whitespace runs and characters outside the BMP.

export const ARTICLE_FIXTURES: Readonly<Record<string, string>> = {
  entities: `<p>Tom &amp; Jerry &lt;3 &quot;quotes&quot; &#x1F600; caf&eacute; and&nbsp;&nbsp;spaces &gt; all.</p>
<p>Second&#160;paragraph with &#169; 2026 &mdash; and &hellip; done.</p>`,
  inline: `<h2>A <em>nested</em> heading</h2>
<p>Some <strong>bold <em>and <a href="https://example.com/">linked <code>code</code></a> words</em></strong>, then plain.</p>
<p><sub>sub</sub>script and <sup>sup</sup>erscript  glued<em>together</em>with<strong>no</strong>spaces.</p>`,
  lists: `<ul>
  <li>First item with <em>emphasis</em></li>
  <li>Second item
    <ol start="3"><li>nested one</li><li>nested two</li></ol>
  </li>
</ul>
<blockquote><p>A quote in a block.</p><p>Its second paragraph.</p></blockquote>
Loose text between blocks.
<figure><img src="https://example.com/a.png" alt="An image"><figcaption>A caption, with <em>style</em>.</figcaption></figure>`,
  table: `<table><caption>Results</caption>
<thead><tr><th>Name</th><th>Score</th></tr></thead>
<tbody>
<tr><td>Ada <em>L.</em></td><td>10</td></tr>
<tr><td>Grace</td>
<td>9&nbsp;½</td></tr>
</tbody></table>
<p>After the table.</p>`,
  pre: `<p>Before code.</p>
<pre><code>function f(a, b) {
  return a &lt; b &amp;&amp; b &gt; 0
}


// blank lines above
</code></pre>
<pre>
  indented first line
	tabbed line   
</pre>
<p>After code.</p>`,
  breaks: `<p>Line one<br>line two<br>
line three<br><br>after two breaks</p>
<pre>pre line<br>after a break in pre</pre>
<p>  leading and trailing spaces  <br>  </p>`,
  multibyte: `<h1>日本語の見出し</h1>
<p>Emoji 😀🎉 and flags 🇫🇷, accents: naïve café, Greek αβγ, Han 漢字 in a row.</p>
<p>Combining e&#x301; and ZWJ 👩‍💻 family, astral &#x1D11E; clef.</p>`,
  hr: `<p>Above the rule.</p><hr><p>Below the rule.</p><h3>Heading</h3>tail text without a block`,
}
