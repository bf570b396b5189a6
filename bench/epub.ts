/**
 * `bun bench/epub.ts` (part of `npm run bench`): the EPUB export (docs/import-export.md#epub,
 * docs/benchmarks.md#epub) against the JSON export of the same items, in one run, each download on a freshly
 * started server so that its peak RSS (VmHWM) is its own:
 *
 *   - 100 and 500 items, each a realistic ~2,000-word article (headings, links, emphasis, a list, a quote,
 *     code, a table, an external image that becomes its alt text), `GET /v1/export?format=epub&state=all`;
 *   - 250 and 500 large items: ~20,000 words and two archived 64 KiB PNG images each (rows of `item_images`,
 *     as enrichment stores them; the larger book carries ~64 MiB of images), to show memory does not grow
 *     with the book;
 *   - the JSON export of the same 500 items (`GET /v1/export?format=json`), the ratio's baseline, and an idle
 *     server's peak, what "flat" is measured against.
 *
 * Time is from the request to the last byte read; every book is checked to hold its chapters and images. Pinned like
 * bench/run.ts when taskset is there. Knobs: BENCH_EPUB_RUNS (3 of each download; the median time and the
 * highest peak are reported).
 */
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zlibSync } from 'fflate'
import { crc32 } from '../core/export/epub/epub-zip.ts'
import { archivedImageUrl } from '../core/reading/archived-image-url.ts'
import { uuidv7 } from '../core/ids.ts'
import { webRandom } from '../core/time.ts'
import {
  benchEnv,
  createPersonWithKey,
  envNumber,
  peakRssMiB,
  pinCores,
  runBench,
  SERVER,
  startServer,
  stopAll,
} from './lib/processes.ts'
import { seededRandom } from './lib/seed.ts'
import { median } from './lib/stats.ts'
import { fmt, log, machine, printTable, writeResults } from './lib/tables.ts'

const RUNS = envNumber('BENCH_EPUB_RUNS', 3)
const started = performance.now()
const workDir = mkdtempSync(join(tmpdir(), 'readlater-bench-epub-'))
const dbPath = join(workDir, 'epub.db')
// A fixed web app address: the stored articles point at their archived images under it, whatever port a
// server of this run listens on.
const APP_URL = 'https://bench.example'
const env = benchEnv(`file:${dbPath}`, { APP_URL })
const random = seededRandom(11)

// A vocabulary with a long tail, as prose has.
const vocabulary = Array.from({ length: 5_000 }, (_, i) => {
  let word = ''
  for (let n = 2 + (i % 9); n > 0; n--) word += String.fromCharCode(97 + Math.floor(random() * 26))
  return word
})
const word = () => vocabulary[Math.floor(random() ** 3 * vocabulary.length)]!
const sentence = (words: number) => {
  const text = Array.from({ length: words }, word).join(' ')
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`
}

/** A paragraph of ~`words` words with a link and some emphasis, as a sanitized article holds it. */
function paragraph(words: number): string {
  const sentences: string[] = []
  for (let left = words; left > 0; ) {
    const n = Math.min(left, 10 + Math.floor(random() * 14))
    sentences.push(sentence(n))
    left -= n
  }
  const text = sentences.join(' ')
  const at = text.indexOf(' ', Math.floor(text.length / 3))
  return `<p>${text.slice(0, at)} <a href="https://example.com/${word()}/${word()}" rel="noopener noreferrer nofollow">${word()} ${word()}</a> <em>${word()}</em>${text.slice(at)}</p>`
}

/** A sanitized article of about `words` words, with the elements real articles have, and `images` extra. */
function article(words: number, images: readonly string[] = []): string {
  const parts: string[] = []
  let written = 0
  let section = 0
  while (written < words) {
    if (written % 600 < 100) parts.push(`<h2>${sentence(4).slice(0, -1)}</h2>`)
    const n = 60 + Math.floor(random() * 60)
    parts.push(paragraph(n))
    written += n
    section++
    if (section % 7 === 0) parts.push(`<ul><li>${sentence(8)}</li><li>${sentence(6)}</li><li>${sentence(9)}</li></ul>`)
    if (section % 9 === 0) parts.push(`<blockquote><p>${sentence(20)}</p></blockquote>`)
    if (section % 11 === 0)
      parts.push(`<pre><code>const ${word()} = ${word()}(${word()}, 42)\nreturn ${word()}</code></pre>`)
    if (section % 13 === 0)
      parts.push(
        `<table><thead><tr><th>${word()}</th><th>${word()}</th></tr></thead><tbody><tr><td>${word()}</td><td>12</td></tr><tr><td>${word()}</td><td>34</td></tr></tbody></table>`,
      )
    if (section === 3)
      parts.push(
        `<figure><img src="https://cdn.example.com/${word()}.jpg" alt="${sentence(6)}"><figcaption>${sentence(8)}</figcaption></figure>`,
      )
    if (images[section - 1]) parts.push(`<figure><img src="${images[section - 1]}" alt="Figure ${section}"></figure>`)
  }
  return parts.join('')
}

/** A real PNG of noise, ~64 KiB (deflate cannot shrink it). */
function noisePng(side: number): Uint8Array {
  const raw = new Uint8Array(side * (side * 3 + 1))
  for (let i = 0; i < raw.length; i++) raw[i] = i % (side * 3 + 1) === 0 ? 0 : Math.floor(random() * 256)
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length)
    const view = new DataView(out.buffer)
    view.setUint32(0, data.length)
    out.set(new TextEncoder().encode(type), 4)
    out.set(data, 8)
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
    return out
  }
  const header = new Uint8Array(13)
  new DataView(header.buffer).setUint32(0, side)
  new DataView(header.buffer).setUint32(4, side)
  header.set([8, 2, 0, 0, 0], 8)
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlibSync(raw, { level: 1 })),
    chunk('IEND', new Uint8Array()),
  ]
  return new Uint8Array(Buffer.concat(parts))
}

/**
 * `count` items for the person, each with its article and `images` archived images (the article shows
 * them), written straight into the database as enrichment would.
 */
function seed(userId: string, count: number, words: number, images: number, label: string): void {
  const db = new BunDatabase(dbPath)
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000')
  const item = db.prepare(`INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags,
    enrichment_status, capture_channel, is_read, last_saved_at, created_at, updated_at)
    VALUES (?, ?, ?, ?, 'example.com', ?, 'article', '[]', 'enriched', 'api', 0, ?, ?, ?)`)
  const content =
    db.prepare(`INSERT INTO item_contents (item_id, title, byline, site_name, lang, word_count, html, text, extracted_at)
    VALUES (?, ?, 'Bench Author', 'Example', 'en', ?, ?, ?, ?)`)
  const image =
    db.prepare(`INSERT INTO item_images (item_id, n, user_id, original_url, media_type, size, created_at, bytes)
    VALUES (?, ?, ?, ?, 'image/png', ?, ?, ?)`)
  const base = Date.parse('2026-11-01T00:00:00.000Z')
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = new Date(base + i * 1000).toISOString()
      const id = uuidv7(base + i * 1000, webRandom)
      const url = `https://example.com/${label}/${i}`
      const title = sentence(6).slice(0, -1)
      const sources = Array.from({ length: images }, (_, k) => archivedImageUrl(APP_URL, id, k + 1))
      const body = article(words, sources)
      item.run(id, userId, url, url, title, at, at, at)
      content.run(id, title, words, body, 'text', at)
      for (let k = 0; k < images; k++) {
        const png = noisePng(148)
        image.run(id, k + 1, userId, `https://cdn.example.com/${label}/${i}/${k}.png`, png.byteLength, at, png)
      }
    }
  })()
  db.close()
}

interface Download {
  MiB: number
  seconds: number
  peakRssMiB: number
  entries: number
}

/** One download on a fresh server: its size, time, the server's peak RSS, and the zip's entry count (0 for JSON). */
async function download(path: string, key: string): Promise<Download> {
  await stopAll()
  const server = await startServer('readlater', [SERVER], env)
  const t = performance.now()
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  let bytes = 0
  let tail = new Uint8Array()
  for await (const chunk of response.body!) {
    bytes += chunk.byteLength
    tail = chunk.byteLength >= 22 ? chunk.slice(-22) : new Uint8Array([...tail, ...chunk].slice(-22))
  }
  const seconds = (performance.now() - t) / 1000
  const peak = peakRssMiB(server.process.pid)
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength)
  const entries = view.getUint32(0, true) === 0x06054b50 ? view.getUint16(10, true) : 0
  return { MiB: bytes / 2 ** 20, seconds, peakRssMiB: peak, entries }
}

async function idlePeak(): Promise<number> {
  await stopAll()
  const server = await startServer('readlater', [SERVER], env)
  await (await fetch(`${server.url}/health`)).arrayBuffer()
  await Bun.sleep(500)
  return peakRssMiB(server.process.pid)
}

async function main(): Promise<number> {
  log(`readlater EPUB bench: ${RUNS} run(s) of each download, ${machine()}`)
  log(pinCores())
  const scopes = ['saved-items:read', 'folders:read']
  const small = await createPersonWithKey(env, 'epub-100@bench.example', scopes)
  const typical = await createPersonWithKey(env, 'epub-500@bench.example', scopes)
  const halfLarge = await createPersonWithKey(env, 'epub-large-250@bench.example', scopes)
  const large = await createPersonWithKey(env, 'epub-large@bench.example', scopes)
  log('seeding: 100 + 500 items of ~2,000 words, 250 + 500 of ~20,000 words with two archived 64 KiB images')
  seed(small.userId, 100, 2_000, 0, 'small')
  seed(typical.userId, 500, 2_000, 0, 'typical')
  seed(halfLarge.userId, 250, 20_000, 2, 'large-250')
  seed(large.userId, 500, 20_000, 2, 'large')

  const cases = [
    {
      name: 'EPUB, 100 items × 2,000 words',
      path: '/v1/export?format=epub&state=all',
      key: small.key,
      chapters: 100,
      images: 0,
    },
    {
      name: 'EPUB, 500 items × 2,000 words',
      path: '/v1/export?format=epub&state=all',
      key: typical.key,
      chapters: 500,
      images: 0,
    },
    { name: 'JSON, the same 500 items', path: '/v1/export?format=json', key: typical.key, chapters: 0, images: 0 },
    {
      name: 'EPUB, 250 items × 20,000 words + 2 images',
      path: '/v1/export?format=epub&state=all',
      key: halfLarge.key,
      chapters: 250,
      images: 2,
    },
    {
      name: 'EPUB, 500 items × 20,000 words + 2 images',
      path: '/v1/export?format=epub&state=all',
      key: large.key,
      chapters: 500,
      images: 2,
    },
  ]
  const results: Record<string, Download[]> = {}
  const idle: number[] = []
  for (let run = 0; run < RUNS; run++) {
    idle.push(await idlePeak())
    for (const c of cases) {
      const got = await download(c.path, c.key)
      // mimetype, container, stylesheet, contents, package, one chapter an item and each of its images.
      const expected = c.chapters === 0 ? 0 : c.chapters * (1 + c.images) + 5
      if (got.entries !== expected)
        throw new Error(
          `${c.name}: the book holds ${got.entries} files, not the ${expected} of its chapters and images`,
        )
      ;(results[c.name] ??= []).push(got)
      log(`  ${c.name}: ${fmt(got.MiB, 1)} MiB in ${fmt(got.seconds, 2)} s, peak ${fmt(got.peakRssMiB, 0)} MiB`)
    }
  }
  await stopAll()

  const summary = Object.fromEntries(
    Object.entries(results).map(([name, runs]) => [
      name,
      {
        MiB: runs[0]!.MiB,
        seconds: median(runs.map((r) => r.seconds)),
        peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
        entries: runs[0]!.entries,
      },
    ]),
  )
  const json = summary['JSON, the same 500 items']!
  const idleMiB = Math.max(...idle)
  console.log('')
  console.log(`EPUB export (docs/import-export.md#epub), ${machine()}; idle server peak ${fmt(idleMiB, 0)} MiB`)
  printTable(
    ['download', 'MiB', 'seconds (median)', '÷ JSON time', 'peak RSS MiB', 'over idle'],
    Object.entries(summary).map(([name, s]) => [
      name,
      fmt(s.MiB, 1),
      fmt(s.seconds, 2),
      fmt(s.seconds / json.seconds, 1),
      fmt(s.peakRssMiB, 0),
      fmt(s.peakRssMiB - idleMiB, 0),
    ]),
  )
  writeResults('epub', { runs: RUNS, idleMiB, idle, results, summary }, started)
  return 0
}

await runBench(main, async () => {
  await stopAll()
  rmSync(workDir, { recursive: true, force: true })
})
