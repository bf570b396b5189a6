/**
 * `bun bench/highlights.ts`: re-anchoring 1,000 highlights after a 10,000-word article is extracted again
 * (docs/highlights.md#re-anchoring; the bar is 100 ms). Prints the median of BENCH_HIGHLIGHT_RUNS (20) runs of
 * core's `reanchorQuotes` for each kind of new text, then the whole write as enrichment does it
 * (`storeArticle`: the article, the highlights read, re-anchored and the moved ones updated, one transaction)
 * on the embedded database. The article and the passages are generated from a fixed seed.
 */
import { anchorQuote, reanchorQuotes, type ReanchorTarget } from '../core/highlights/anchor.ts'
import { uuidv7 } from '../core/ids.ts'
import { openDatabase } from '../adapters/storage/open-database.ts'
import { storeArticle } from '../adapters/storage/reading.ts'

const RUNS = Number(process.env.BENCH_HIGHLIGHT_RUNS ?? 20)
const HIGHLIGHTS = 1_000
const WORDS = 10_000

let seed = 42
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

// A vocabulary with a long tail, as prose has: common words repeat, so passages repeat too.
const vocabulary = Array.from({ length: 4_000 }, (_, i) => {
  let word = ''
  for (let n = 2 + (i % 9); n > 0; n--) word += String.fromCharCode(97 + Math.floor(random() * 26))
  return word
})
const word = () => vocabulary[Math.floor(random() ** 3 * vocabulary.length)]!
function paragraphs(words: number): string[] {
  const out: string[] = []
  for (let left = words; left > 0; ) {
    const sentences: string[] = []
    for (let s = 0; s < 4 + Math.floor(random() * 4) && left > 0; s++) {
      const n = Math.min(left, 8 + Math.floor(random() * 16))
      left -= n
      const sentence = Array.from({ length: n }, word).join(' ')
      sentences.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`)
    }
    out.push(sentences.join(' '))
  }
  return out
}

const original = paragraphs(WORDS)
const text = original.join('\n\n')

// 1,000 passages of 3 to 40 words, anchored as a client creating them would be.
const targets: ReanchorTarget[] = []
const passages: string[] = []
while (targets.length < HIGHLIGHTS) {
  const words = text.split(' ')
  const from = Math.floor(random() * (words.length - 45))
  const exact = words.slice(from, from + 3 + Math.floor(random() * 38)).join(' ')
  const anchored = anchorQuote(text, { exact, prefix: '', suffix: '' }, null)
  if (!anchored) continue
  targets.push(anchored)
  passages.push(exact)
}

const inserted = () => paragraphs(120)
const moved = [
  ...inserted(),
  ...original.slice(0, 40),
  ...inserted(),
  ...original.slice(40, 200),
  ...inserted(),
  ...original.slice(200),
]
// 3% of the passages edited (one word changed in the middle), 2% removed, everything moved.
let realistic = moved.join('\n\n')
for (const [i, exact] of passages.entries()) {
  if (i % 100 < 3) {
    const words = exact.split(' ')
    words[Math.floor(words.length / 2)] = 'edited'
    realistic = realistic.replace(exact, words.join(' '))
  } else if (i % 100 < 5) realistic = realistic.replace(exact, '')
}
let allRemoved = text
for (const exact of passages) allRemoved = allRemoved.split(exact).join(' ')

const scenarios: [string, string][] = [
  ['the same text', text],
  ['paragraphs added above and between (every passage moved)', moved.join('\n\n')],
  ['moved, 3% of passages edited, 2% removed', realistic],
  ['every passage removed (the approximate search runs out of budget)', allRemoved],
]

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

console.log(
  `text ${text.length.toLocaleString('en-US')} characters, ${WORDS.toLocaleString('en-US')} words; ${HIGHLIGHTS} highlights`,
)
for (const [name, newText] of scenarios) {
  const times: number[] = []
  let found = 0
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now()
    const positions = reanchorQuotes(newText, targets)
    times.push(performance.now() - started)
    found = positions.filter((position) => position !== null).length
  }
  console.log(
    `reanchorQuotes, ${name}: ${median(times).toFixed(1)} ms (median of ${RUNS}), ${found} of ${HIGHLIGHTS} found`,
  )
}

// The whole write, as the enrichment worker makes it.
const db = await openDatabase('file::memory:')
const now = '2026-11-22T10:00:00.000Z'
const userId = uuidv7(1, { fill: (bytes) => crypto.getRandomValues(bytes) })
const itemId = uuidv7(2, { fill: (bytes) => crypto.getRandomValues(bytes) })
await db.$client.execute({
  sql: "INSERT INTO users (id, email, password_hash, created_at) VALUES (?, 'bench@example.com', 'x', ?)",
  args: [userId, now],
})
await db.$client.execute({
  sql: `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
    VALUES (?, ?, 'https://bench.example/a', 'https://bench.example/a', 'bench.example', 'article', '[]', 'enriched', 0, ?, ?, ?)`,
  args: [itemId, userId, now, now, now],
})
const article = (body: string) => ({
  title: 'Bench',
  byline: null,
  siteName: null,
  lang: 'en',
  wordCount: WORDS,
  html: '<p>bench</p>',
  text: body,
})
await storeArticle(db, itemId, article(text), now, null)
for (const [i, target] of targets.entries()) {
  await db.$client.execute({
    sql: `INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'yellow', NULL, ?, ?)`,
    args: [
      `h${String(i).padStart(4, '0')}`,
      userId,
      itemId,
      target.quote.exact,
      target.quote.prefix,
      target.quote.suffix,
      target.position!.start,
      target.position!.end,
      now,
      now,
    ],
  })
}
for (const [name, newText] of scenarios.slice(0, 3)) {
  const times: number[] = []
  for (let run = 0; run < RUNS; run++) {
    // Back to the original text first (untimed), so every timed write moves the passages again.
    await storeArticle(db, itemId, article(text), now, null)
    const started = performance.now()
    await storeArticle(db, itemId, article(newText), now, null)
    times.push(performance.now() - started)
  }
  console.log(`storeArticle (${db.$engine}), ${name}: ${median(times).toFixed(1)} ms (median of ${RUNS})`)
}
