/**
 * `bun bench/highlights.ts`: re-anchoring 1,000 highlights after a 10,000-word article is extracted again
 * (docs/highlights.md#re-anchoring; the bar is 100 ms). Prints the median of BENCH_HIGHLIGHT_RUNS (20) runs of
 * core's `reanchorQuotes` for each kind of new text, then the whole write as enrichment does it
 * (`storeArticle`: the article, the highlights read, re-anchored and the moved ones updated, one transaction)
 * on the embedded database. The article and the passages are generated from a fixed seed. Then a page of
 * `GET /v1/highlights` at 100,000 highlights beside a page of `GET /v1/saved-items`, in process.
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

// GET /v1/highlights at 100,000 highlights, beside GET /v1/saved-items (10,000 items) in the same run: pages of
// 50 through the whole request pipeline, in process, each list with its page cache and without
// (LIST_CACHE_MB=0; docs/benchmarks.md#list-page-cache, docs/highlights.md#endpoints).
{
  const { createServer } = await import('../adapters/http/app.ts')
  const { readConfig } = await import('../adapters/config.ts')
  const { insertApiKey } = await import('../adapters/storage/api-keys.ts')
  const { apiKeyDisplayPrefix, generateApiKey, hashApiKey } = await import('../core/auth/api-keys.ts')
  const { SCOPES } = await import('../core/types.ts')
  const listDb = await openDatabase('file::memory:')
  const webRandom = { fill: (bytes: Uint8Array) => crypto.getRandomValues(bytes) }
  const serverWith = (env: Record<string, string>) =>
    createServer({
      db: listDb,
      config: readConfig({ BASE_URL: 'http://localhost:3000', RATE_LIMIT_MAX: '100000000', ...env }),
      clock: { now: () => new Date() },
      random: webRandom,
      log: () => {},
    })
  const cached = serverWith({})
  const uncached = serverWith({ LIST_CACHE_MB: '0' })
  const owner = uuidv7(Date.now(), webRandom)
  await listDb.$client.execute({
    sql: "INSERT INTO users (id, email, password_hash, created_at) VALUES (?, 'list@example.com', 'x', ?)",
    args: [owner, now],
  })
  const key = generateApiKey(webRandom)
  await insertApiKey(listDb, {
    id: uuidv7(Date.now(), webRandom),
    userId: owner,
    keyHash: hashApiKey(key),
    prefix: apiKeyDisplayPrefix(key),
    label: 'bench',
    scopes: [...SCOPES],
    createdAt: now,
  })
  // 10,000 items, 10 highlights on each, created a second apart.
  await listDb.$client.execute({
    sql: `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
      INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, title, type, tags, enrichment_status, is_read, last_saved_at, created_at, updated_at)
      SELECT printf('item-%05d', i), ?, printf('https://bench.example/%d', i), printf('https://bench.example/%d', i), 'bench.example', printf('Item %d', i), 'article', '[]', 'enriched', 0,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', i)), ?, ? FROM n`,
    args: [owner, now, now],
  })
  await listDb.$client.execute({
    sql: `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
      INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
      SELECT printf('h-%06d', i), ?, printf('item-%05d', i / 10), 'a passage that was worth keeping', 'the text before it, ', ', and after it', i, i + 32, 'yellow', CASE WHEN i % 3 = 0 THEN 'a note' END,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', i)), strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', printf('+%d seconds', i)) FROM n`,
    args: [owner],
  })
  const get = async (path: string, server = cached) => {
    const response = await server.fetch(
      new Request(`http://localhost:3000${path}`, { headers: { authorization: `Bearer ${key}` } }),
      { clientIp: '127.0.0.1' },
    )
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
    await response.arrayBuffer()
    return response.headers.get('link')
  }
  const { encodeHighlightCursor } = await import('../core/highlights/list-cursor.ts')
  const [middle] = (
    await listDb.$client.execute(
      'SELECT id, created_at FROM highlights ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 49999',
    )
  ).rows
  const deep = `/v1/highlights?limit=50&cursor=${encodeHighlightCursor(String(middle!.created_at), String(middle!.id))}`
  const time = async (path: string, server = cached) => {
    for (let i = 0; i < 50; i++) await get(path, server)
    const times: number[] = []
    for (let i = 0; i < 500; i++) {
      const started = performance.now()
      await get(path, server)
      times.push(performance.now() - started)
    }
    return median(times)
  }
  const items = await time('/v1/saved-items?limit=50')
  const itemsUncached = await time('/v1/saved-items?limit=50', uncached)
  const first = await time('/v1/highlights?limit=50')
  const later = await time(deep)
  const firstUncached = await time('/v1/highlights?limit=50', uncached)
  console.log(
    `GET /v1/highlights?limit=50 at 100,000 highlights: first page ${first.toFixed(3)} ms, the page after 50,000 ${later.toFixed(3)} ms (medians of 500)`,
  )
  console.log(
    `GET /v1/saved-items?limit=50 at 10,000 items: ${items.toFixed(3)} ms from its page cache (highlights ${(first / items).toFixed(2)}×), ${itemsUncached.toFixed(3)} ms with LIST_CACHE_MB=0 (highlights, also uncached, ${firstUncached.toFixed(3)} ms: ${(firstUncached / itemsUncached).toFixed(2)}×)`,
  )
}
