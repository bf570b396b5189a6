/**
 * `bun bench/extract.ts`: extractPage() on each sample page in test/fixtures/pages, beside a
 * baseline measured in the same run: a bare htmlparser2 Parser with no callbacks over the same
 * text, which is the tokenizing cost any extractor built on it pays. The ratio is what to compare
 * across machines. Two generated 1 MiB pages show the early stop: an article the extractor leaves
 * after its first paragraphs, and a page without an article it reads one settle window into.
 *
 * Knobs: BENCH_EXTRACT_BATCHES (200), BENCH_EXTRACT_BATCH (20 calls per timed batch).
 */
import { Parser } from 'htmlparser2'
import { decodeHtml } from '../core/enrichment/decode-html.ts'
import { extractPage } from '../core/enrichment/extract-page.ts'
import { PAGE_NAMES, readPage } from '../test/fixtures/pages/read-page.ts'

const num = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`)
  return value
}
const BATCHES = num('BENCH_EXTRACT_BATCHES', 200)
const BATCH = num('BENCH_EXTRACT_BATCH', 20)
const FINAL_URL = 'https://bench.example.com/posts/sample'

const paragraph = `<p>${'A streaming parser reads the document as it arrives, one chunk at a time. '.repeat(12)}</p>\n`
const filler = paragraph.repeat(Math.ceil((1024 * 1024) / paragraph.length))
const pages: [name: string, html: string][] = [
  ...PAGE_NAMES.map((name): [string, string] => [name, decodeHtml(readPage(name), 'text/html')]),
  [
    '1 MiB article',
    `<html><head><meta property="og:type" content="article"><title>Long</title></head><body><article>${filler}</article></body></html>`,
  ],
  ['1 MiB plain', `<html><head><title>Long</title></head><body>${filler}</body></html>`],
]

const baseline = (html: string): void => {
  const parser = new Parser({})
  parser.write(html)
  parser.end()
}

/** Median microseconds per call, timing batches so the clock's resolution does not matter. */
function measure(run: () => void): number {
  const perCall: number[] = []
  for (let batch = 0; batch < BATCHES; batch++) {
    const start = performance.now()
    for (let call = 0; call < BATCH; call++) run()
    perCall.push(((performance.now() - start) * 1000) / BATCH)
  }
  perCall.sort((a, b) => a - b)
  return perCall[Math.floor(perCall.length / 2)]!
}

const rows: string[][] = [['page', 'chars', 'extractPage µs', 'bare parser µs', 'ratio']]
for (const [name, html] of pages) {
  // Warm both paths up so the JIT has compiled them before anything is timed.
  for (let index = 0; index < 50; index++) {
    extractPage(html, FINAL_URL)
    baseline(html)
  }
  const extract = measure(() => extractPage(html, FINAL_URL))
  const bare = measure(() => baseline(html))
  rows.push([name, String(html.length), extract.toFixed(1), bare.toFixed(1), (extract / bare).toFixed(2)])
}

const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
for (const row of rows)
  console.log(
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  '),
  )
