/**
 * Article pages of a chosen size for the reading bench: the fixture article (test/fixtures/pages/article.html)
 * with realistic sections (paragraphs with links, emphasis and code, subheadings, lists, quotes, figures)
 * added inside its `<article>` until the page reaches the size asked for. Deterministic: the same size and
 * seed give the same bytes.
 */
import { readFileSync } from 'node:fs'

export const FIXTURE_ARTICLE = readFileSync(new URL('../test/fixtures/pages/article.html', import.meta.url), 'utf8')

const SECTIONS: ((n: number) => string)[] = [
  (n) =>
    `<p>A streaming tokenizer keeps its state between writes, so the parser in <a href="/posts/tokenizer-state-${n}">part ${n} of this series</a> never sees half a tag. We measured it against a buffered parse on the <a href="https://data.example.org/corpus/${n}">public crawl sample</a>: the streaming version reads the same documents with a fraction of the memory, and stops early on most of them.</p>\n`,
  (n) =>
    `<p>The harder case is a page whose <code>&lt;head&gt;</code> is split across three network reads, with a <code>&lt;meta charset&gt;</code> arriving after the first kilobyte. Browsers re-decode in that case; we do too, but only once, and only when the declared charset differs from the one we guessed (section ${n}).</p>\n`,
  (n) =>
    `<h2>Measuring section ${n}</h2>\n<p>Every number here comes from the same <em>shared two-core machine</em>, so we report ratios against a baseline measured in the same run, never absolute times. See <a href="/posts/benchmarks-${n}">how we benchmark</a> and the <a href="https://github.example.com/readlater/issues/${n}">issue that started it</a>.</p>\n`,
  (n) =>
    `<ul>\n<li>Read the response as it arrives, <strong>one chunk at a time</strong>.</li>\n<li>Stop as soon as nothing more can change the result (<a href="/notes/${n}#early-stop">why this is safe</a>).</li>\n<li>Never throw on malformed markup; at worst read less than a browser would.</li>\n</ul>\n`,
  (n) =>
    `<blockquote><p>The best parser is the one that stops reading. Everything after the first screenful is, for our purposes, somebody else&#8217;s problem.</p></blockquote>\n<p>That quote, from <a href="https://people.example.net/ada-${n}">a colleague</a>, sums up the design. It is not quite true: comments and scripts can hide the title, and a few sites put their Open Graph tags at the very end of the body.</p>\n`,
  (n) =>
    `<figure><img src="/images/chart-${n}.png" alt="Parse time against page size, chart ${n}" width="640" height="360"><figcaption>Parse time grows linearly with the bytes read, until the early stop cuts it off.</figcaption></figure>\n<p>The chart above shows the median of twenty runs per size; the error bars are the first and ninth deciles. Pages past a megabyte are rare, but they exist, and they are exactly the ones that would stall a request if parsed on the serving thread.</p>\n`,
  (n) =>
    `<pre><code>const parser = new Parser(handler, { decodeEntities: true })\nfor await (const chunk of body) parser.write(decoder.decode(chunk, { stream: true }))\nparser.end() // ${n}</code></pre>\n<p>That loop is the whole integration. The handler collects what it needs and calls <code>parser.pause()</code> once it has it; see <a href="/docs/api/parser-${n}">the parser&#8217;s documentation</a> for the callbacks it offers.</p>\n`,
  (n) =>
    `<p>Character references deserve a note of their own. A page may write an apostrophe as <code>&amp;#8217;</code>, <code>&amp;rsquo;</code> or the character itself, and all three must read the same. The tokenizer decodes each reference whole, even when a chunk boundary falls in its middle &#8212; which, in <a href="/posts/entities-${n}">our test corpus</a>, happened in about one page in four hundred.</p>\n`,
]

/** The fixture with sections added inside its `<article>` until the page is about `bytes` long (UTF-8). */
export function articlePage(bytes: number, seed = 0): string {
  const [head, tail] = FIXTURE_ARTICLE.split('</article>') as [string, string]
  const parts: string[] = []
  let size = Buffer.byteLength(FIXTURE_ARTICLE)
  for (let n = seed; ; n++) {
    const section = SECTIONS[n % SECTIONS.length]!(n)
    const added = Buffer.byteLength(section)
    if (size + added > bytes) break
    parts.push(section)
    size += added
  }
  return `${head}${parts.join('')}</article>${tail}`
}
