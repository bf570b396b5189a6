// `bun scripts/highlights-screenshots.ts`: the screenshots of docs/highlights.md#web and the README
// (docs/images/highlights-*.png): the reader view with highlights in each colour and a highlight's panel open,
// in a light and a dark colour scheme, the same at 360 px in dark, and the page of all highlights. The whole
// service on a loopback port with an in-memory database, Debian's Chromium; nothing is left behind.
import { launchBrowser, signInThroughForm, startLiveServer } from '../test/helpers/browser.ts'
import { userWithPassword } from '../test/web/fixtures.ts'
import { apiKeyFor, captureItem } from '../test/web/reader-fixtures.ts'
import { extractArticle } from '../core/reading/extract-article.ts'

const OUT = new URL('../docs/images/', import.meta.url).pathname
const PASSWORD = 'a long password'

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Memory safety without a garbage collector | Field Notes</title>
<meta property="og:site_name" content="Field Notes"><meta name="author" content="Ada Lovelace"></head>
<body><article><h1>Memory safety without a garbage collector</h1>
<p>For decades the choice looked binary. Either a language managed memory for you, with a garbage collector
pausing the program now and then, or it handed you the pointers and trusted you to free each allocation exactly
once. Rust made a third option mainstream: <em>ownership</em>, checked by the compiler, so that memory safety
costs nothing at run time.</p>
<h2>Ownership in one paragraph</h2>
<p>Every value has exactly one owner. When the owner goes out of scope, the value is dropped. You may lend a
value out, either to many readers at once or to a single writer, but never both at the same time. That last
rule is the one that rules out data races, and it is the one newcomers fight with longest.</p>
<blockquote><p>The borrow checker is not there to say no. It is there to make the design you already had in mind
explicit, and to tell you when it was not the design you thought it was.</p></blockquote>
<h2>What it costs</h2>
<ul><li>Compile times grow with the checks the compiler makes.</li>
<li>Some data structures, graphs above all, need <code>Rc</code>, arenas or indices instead of plain references.</li>
<li>The learning curve is real: the first month is mostly spent reading error messages.</li></ul>
<p>None of these is free, but each is paid once, at build time, rather than by every user at run time. For a
service that runs on thousands of machines, that trade is easy to make; for a script that runs once, it rarely
is. Choosing well means knowing which of the two you are writing.</p>
<p>In C, memory safety is the programmer's problem, and the record of the last forty years says programmers
are not good at it: about two thirds of serious security bugs in large C and C++ code bases are memory
errors. That number, more than any benchmark, is why the question keeps coming back.</p>
</article></body></html>`

const live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' } })
const browser = await launchBrowser()
try {
  const email = 'ada@example.com'
  const userId = await userWithPassword(live.harness, email, PASSWORD)
  const key = await apiKeyFor(live.harness, userId)
  const itemId = await captureItem(live.harness, key, 'https://fieldnotes.example.com/memory-safety')
  const second = await captureItem(live.harness, key, 'https://fieldnotes.example.com/arenas')
  const article = extractArticle(PAGE, 'https://fieldnotes.example.com/memory-safety')!
  for (const id of [itemId, second])
    await live.harness.db.$client.execute({
      sql: `INSERT INTO item_contents (item_id, title, byline, site_name, lang, word_count, html, text, extracted_at)
        VALUES (?, ?, 'Ada Lovelace', 'Field Notes', 'en', ?, ?, ?, '2026-11-22T10:00:00.000Z')`,
      args: [id, article.title, article.wordCount, article.html, article.text],
    })
  await live.harness.db.$client.execute({
    sql: `UPDATE saved_items SET title = CASE id WHEN ? THEN 'Memory safety without a garbage collector' ELSE 'Arenas, indices and the graphs Rust makes hard' END,
      site_name = 'Field Notes', enrichment_status = 'enriched' WHERE id IN (?, ?)`,
    args: [itemId, itemId, second],
  })
  const highlight = async (item: string, exact: string, color: string, note?: string) => {
    const start = article.text.indexOf(exact)
    const response = await fetch(`${live.url}/v1/saved-items/${item}/highlights`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ quote: { exact }, position: { start, end: start + exact.length }, color, note }),
    })
    if (response.status !== 201) throw new Error(`highlight: ${response.status} ${await response.text()}`)
    return ((await response.json()) as { highlight: { id: string } }).highlight.id
  }
  await highlight(second, 'need Rc, arenas or indices instead of plain references', 'purple', 'Try an arena first.')
  await highlight(itemId, 'so that memory safety costs nothing at run time', 'yellow')
  const rule = await highlight(
    itemId,
    'but never both at the same time. That last rule is the one that rules out data races',
    'green',
    'The whole idea in one sentence: shared XOR mutable.',
  )
  await highlight(itemId, 'make the design you already had in mind explicit', 'blue')
  await highlight(itemId, 'each is paid once, at build time, rather than by every user at run time', 'pink')
  await highlight(itemId, 'about two thirds of serious security bugs', 'purple', 'Source: Chromium and Microsoft.')

  for (const [scheme, width, height, name] of [
    ['light', 1280, 860, 'highlights-reader-light.png'],
    ['dark', 1280, 860, 'highlights-reader-dark.png'],
    ['dark', 360, 780, 'highlights-reader-dark-phone.png'],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme })
    const page = await context.newPage()
    await signInThroughForm(page, live.url, email, PASSWORD)
    await page.goto(`${live.url}/items/${itemId}`)
    await page.waitForFunction(() => history.scrollRestoration === 'manual')
    await page.evaluate(() => document.querySelector('h1')!.scrollIntoView())
    await page.locator(`#highlight-${rule}`).click()
    await page.getByRole('dialog', { name: 'Highlight' }).waitFor()
    if (width < 400) await page.evaluate(() => scrollBy(0, 260))
    await page.screenshot({ path: `${OUT}${name}` })
    if (scheme === 'light') {
      await page.goto(`${live.url}/highlights`)
      await page.screenshot({ path: `${OUT}highlights-page-light.png` })
    }
    await context.close()
  }
  console.log(`written: ${OUT}highlights-{reader-light,reader-dark,reader-dark-phone,page-light}.png`)
} finally {
  await browser.close()
  await live.stop()
}
