/**
 * `bun bench/webhooks.ts`: webhook delivery (docs/webhooks.md), in one run:
 *
 *   1. captures with one webhook subscribed to every event against captures with none: the same upserts
 *      through the same code as bench/changes.ts (in process, 64 at a time, as the group commit takes them),
 *      one database where the person has the webhook and one where they have none, rounds alternated. No
 *      sender runs: what is measured is the outbox row each capture's trigger writes.
 *   2. events delivered per second: a server (its own delivery workers, ENRICH_ALLOW_PRIVATE=1) with one
 *      webhook to a receiver in this process answering 204; a burst of BENCH_WEBHOOK_EVENTS captures over
 *      HTTP, BENCH_WEBHOOK_CONCURRENCY in flight, timed from the first capture until the receiver has every
 *      `saved_item.created` message; the latency from each capture's answer to its message's arrival; every
 *      message checked to arrive exactly once (webhook-id and item), signed, and settled in the outbox after
 *      one attempt. Beside it, the same receiver's rate of plain POSTs from one Bun process on the server's
 *      core, as many in flight as the workers hold per webhook (DEFAULT_DELIVERY_OPTIONS.perWebhook).
 * Pinned like bench/run.ts when taskset is there (server and plain sender on CPU 0; captures and receiver
 * on CPU 1). Exits 1 when a correctness check fails.
 *
 * Sizes: BENCH_WEBHOOK_EVENTS (10,000), BENCH_WEBHOOK_CONCURRENCY (captures in flight, 16), BENCH_WEBHOOK_ROUNDS
 * and BENCH_WEBHOOK_CAPTURES (part 1: 5 rounds of 5,000 each side). BENCH_WEBHOOK_SERVER_ARGS goes to the
 * server's `bun` before server.ts, e.g. `--cpu-prof-md --cpu-prof-dir=/tmp/prof` to profile the sender.
 */
import { Database as BunDatabase } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { uuidv7 } from '../core/ids.ts'
import { webRandom } from '../core/time.ts'
import { WEBHOOK_EVENTS } from '../core/webhooks/events.ts'
import type { Database } from '../adapters/storage/open-database.ts'
import { insertWebhook } from '../adapters/storage/webhooks.ts'
import { DEFAULT_DELIVERY_OPTIONS } from '../adapters/jobs/webhook-worker.ts'
import { newWebhookSecret } from '../adapters/app/webhook-secrets.ts'
import { benchEnv, personWithKey, pinCores, ROOT, SERVER, startServer, stopAll } from './lib/processes.ts'
import { alternatedCaptureRates, captureSides } from './lib/seed.ts'
import { median, percentile } from './lib/stats.ts'
import { log, machine } from './lib/tables.ts'

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000)
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 16)
const CAPTURE_ROUND = Number(process.env.BENCH_WEBHOOK_CAPTURES ?? 5000)
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 5)
/** Plain POSTs in flight in the baseline: what the server's workers hold for one webhook. */
const BASELINE_IN_FLIGHT = Math.min(DEFAULT_DELIVERY_OPTIONS.perWebhook, DEFAULT_DELIVERY_OPTIONS.concurrency)
/** With no new message for this long, the delivery is called stuck. */
const STALL_MS = 30_000
const failures: string[] = []
const fail = (line: string) => {
  failures.push(line)
  log(`FAIL: ${line}`)
}

async function captureCost(dir: string): Promise<{ withHook: number[]; without: number[] }> {
  const sides = await captureSides(dir, 'c@bench.example')
  const [{ db: a }, { db: b }] = sides
  const now = new Date()
  const inserted = await insertWebhook(
    a,
    {
      id: uuidv7(now.getTime(), webRandom),
      userId: sides[0].userId,
      url: 'https://hooks.example.com/readlater',
      events: [...WEBHOOK_EVENTS],
      secret: newWebhookSecret(webRandom),
      createdAt: now.toISOString(),
      disabledAt: null,
    },
    10,
  )
  if (!inserted) throw new Error('the webhook of part 1 was not stored')
  const rates = await alternatedCaptureRates(sides, ROUNDS, CAPTURE_ROUND)
  // The cost measured must be the one meant: a message per capture on one side, none on the other.
  const outbox = async (db: Database) =>
    Number((await db.$client.execute('SELECT count(*) AS n FROM webhook_deliveries')).rows[0]!.n)
  const [written, none] = [await outbox(a), await outbox(b)]
  if (written !== ROUNDS * CAPTURE_ROUND) fail(`part 1: ${written} outbox rows for ${ROUNDS * CAPTURE_ROUND} captures`)
  if (none !== 0) fail(`part 1: ${none} outbox rows in the database without a webhook`)
  a.$client.close()
  b.$client.close()
  return { withHook: rates.with, without: rates.without }
}

/** What the receiver saw in one phase. */
interface Received {
  requests: number
  messageIds: Set<string>
  duplicateMessages: number
  /** Item id → when its message arrived (performance.now()), the first time. */
  items: Map<string, number>
  duplicateItems: number
  types: Map<string, number>
  /** Every message as received, for the signature check after the timing. */
  messages: { headers: Record<string, string>; body: string }[]
  keep: boolean
  want: number
  done: () => void
}

function newPhase(want: number, keep: boolean): { phase: Received; all: Promise<void> } {
  let done = () => {}
  const all = new Promise<void>((resolve) => {
    done = resolve
  })
  const phase: Received = {
    requests: 0,
    messageIds: new Set(),
    duplicateMessages: 0,
    items: new Map(),
    duplicateItems: 0,
    types: new Map(),
    messages: [],
    keep,
    want,
    done,
  }
  return { phase, all }
}

/** A receiver answering 204 to every POST, counting messages by webhook-id and by the item inside. */
function startReceiver() {
  let phase: Received = newPhase(0, false).phase
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = await request.text()
      const at = performance.now()
      const p = phase
      p.requests++
      const messageId = request.headers.get('webhook-id') ?? ''
      if (p.messageIds.has(messageId)) p.duplicateMessages++
      else p.messageIds.add(messageId)
      const message = JSON.parse(body) as { type: string; data?: { savedItem?: { id?: string } } }
      p.types.set(message.type, (p.types.get(message.type) ?? 0) + 1)
      const itemId = message.data?.savedItem?.id
      if (message.type === 'saved_item.created' && itemId) {
        if (p.items.has(itemId)) p.duplicateItems++
        else p.items.set(itemId, at)
        if (p.items.size === p.want) p.done()
      }
      if (p.keep) {
        p.messages.push({
          headers: {
            'webhook-id': messageId,
            'webhook-timestamp': request.headers.get('webhook-timestamp') ?? '',
            'webhook-signature': request.headers.get('webhook-signature') ?? '',
          },
          body,
        })
      }
      return new Response(null, { status: 204 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    expect(want: number, keep: boolean): { phase: Received; all: Promise<void> } {
      const next = newPhase(want, keep)
      phase = next.phase
      return next
    },
    stop: () => server.stop(true),
  }
}

/** Resolves when every message is in; rejects after STALL_MS without a new one. */
async function untilAll(phase: Received, all: Promise<void>): Promise<boolean> {
  let seen = -1
  let since = performance.now()
  let finished = false
  void all.then(() => {
    finished = true
  })
  while (!finished) {
    await Promise.race([all, Bun.sleep(250)])
    if (phase.requests !== seen) {
      seen = phase.requests
      since = performance.now()
    } else if (performance.now() - since > STALL_MS) {
      return false
    }
  }
  return true
}

/**
 * The baseline's sender, in a child process on the server's core (BENCH_WEBHOOK_POSTER set): COUNT plain POSTs
 * of the template body, IN_FLIGHT at a time, each with its own webhook-id and item id; prints POSTs/s.
 */
async function poster(): Promise<void> {
  const url = process.env.BENCH_WEBHOOK_POSTER!
  const count = Number(process.env.BENCH_WEBHOOK_POSTER_COUNT)
  const inFlight = Number(process.env.BENCH_WEBHOOK_POSTER_IN_FLIGHT)
  const template = process.env.BENCH_WEBHOOK_POSTER_BODY!
  const templateId = process.env.BENCH_WEBHOOK_POSTER_ITEM!
  let next = 0
  let failed = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const n = next++
        const id = `plain-${String(n).padStart(30, '0')}`.slice(-templateId.length)
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'readlater-bench', 'webhook-id': `msg_${n}` },
          body: template.replace(templateId, id),
        })
        await response.body?.cancel()
        if (response.status !== 204) failed++
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  console.log(JSON.stringify({ perSecond: count / seconds, failed }))
}

async function plainPosts(
  receiver: ReturnType<typeof startReceiver>,
  pinned: boolean,
  template: { body: string; itemId: string },
): Promise<{ perSecond: number; received: Received }> {
  const { phase, all } = receiver.expect(EVENTS, false)
  const taskset = Bun.which('taskset')
  const child = Bun.spawn([...(pinned && taskset ? [taskset, '-c', '0'] : []), process.execPath, import.meta.path], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_WEBHOOK_POSTER: receiver.url,
      BENCH_WEBHOOK_POSTER_COUNT: String(EVENTS),
      BENCH_WEBHOOK_POSTER_IN_FLIGHT: String(BASELINE_IN_FLIGHT),
      BENCH_WEBHOOK_POSTER_BODY: template.body,
      BENCH_WEBHOOK_POSTER_ITEM: template.itemId,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`the plain sender exited with code ${code}:\n${stdout}${stderr}`)
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { perSecond: number; failed: number }
  if (result.failed > 0) fail(`baseline: ${result.failed} plain POSTs not answered 204`)
  if (!(await Promise.race([all.then(() => true), Bun.sleep(5000).then(() => false)])))
    fail(`baseline: the receiver has ${phase.items.size} of ${EVENTS} plain POSTs`)
  return { perSecond: result.perSecond, received: phase }
}

interface Delivery {
  seconds: number
  captureSeconds: number
  /** Messages in when the last capture was answered, and the rate of the rest after it. */
  inByLastCapture: number
  drainPerSecond: number
  latencies: Float64Array
  received: Received
  template: { body: string; itemId: string }
}

async function delivery(dir: string, receiver: ReturnType<typeof startReceiver>): Promise<Delivery> {
  const url = `file:${join(dir, 'delivery.db')}`
  const env = benchEnv(url, { ENRICH_ALLOW_PRIVATE: '1', WEBHOOKS: 'on' })
  const key = await personWithKey(env, 'w@bench.example', ['webhooks:manage', 'saved-items:capture'])
  const server = await startServer(
    'readlater',
    [...(process.env.BENCH_WEBHOOK_SERVER_ARGS ?? '').split(' ').filter(Boolean), SERVER],
    env,
  )
  const made = await fetch(`${server.url}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['saved_item.created'] }),
  })
  if (made.status !== 201) throw new Error(`POST /v1/webhooks answered ${made.status}: ${await made.text()}`)
  const { secret } = (await made.json()) as { secret: string }

  const { phase, all } = receiver.expect(EVENTS, true)
  const answered = new Map<string, number>()
  let next = 0
  let refused = 0
  const runTag = Date.now().toString(36)
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        const n = next++
        const response = await fetch(`${server.url}/v1/captures`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://news.example.com/${runTag}/story-${n}` }),
        })
        const at = performance.now()
        if (response.status !== 201) {
          if (refused++ === 0) log(`capture answered ${response.status}: ${(await response.text()).slice(0, 300)}`)
          else await response.arrayBuffer()
          continue
        }
        const body = (await response.json()) as { savedItem: { id: string } }
        answered.set(body.savedItem.id, at)
      }
    }),
  )
  const capturesDone = performance.now()
  const captureSeconds = (capturesDone - started) / 1000
  const inByLastCapture = phase.items.size
  if (refused > 0) fail(`delivery: ${refused} of ${EVENTS} captures not answered 201`)
  phase.want = answered.size
  if (phase.items.size >= phase.want) phase.done()
  const complete = await untilAll(phase, all)
  const seconds = (performance.now() - started) / 1000
  if (!complete) fail(`delivery: no message for ${STALL_MS / 1000} s with ${phase.items.size} of ${answered.size} in`)
  // Late duplicates would come now, if any.
  await Bun.sleep(500)
  await stopAll()

  // Exactly once: one request per message id, one message per item, every captured item, nothing else.
  const created = phase.types.get('saved_item.created') ?? 0
  if (phase.requests !== answered.size || phase.messageIds.size !== answered.size || created !== answered.size)
    fail(
      `delivery: ${phase.requests} requests, ${phase.messageIds.size} unique webhook-ids, ${created} saved_item.created for ${answered.size} captures`,
    )
  if (phase.duplicateMessages > 0) fail(`delivery: ${phase.duplicateMessages} webhook-ids arrived more than once`)
  if (phase.duplicateItems > 0) fail(`delivery: ${phase.duplicateItems} items had more than one created message`)
  const missing = [...answered.keys()].filter((id) => !phase.items.has(id)).length
  if (missing > 0) fail(`delivery: ${missing} captured items never had their message`)
  const stray = [...phase.items.keys()].filter((id) => !answered.has(id)).length
  if (stray > 0) fail(`delivery: ${stray} messages about items this run did not capture`)
  // Signed with the webhook's secret, as a receiver checks it (after the timing: it is the receiver's cost).
  const verifier = new Webhook(secret)
  let unsigned = 0
  for (const message of phase.messages) {
    try {
      verifier.verify(message.body, message.headers)
    } catch {
      unsigned++
    }
  }
  if (unsigned > 0) fail(`delivery: ${unsigned} messages failed signature verification`)
  // And settled in the outbox: delivered, on the first attempt.
  const outbox = new BunDatabase(join(dir, 'delivery.db'), { readonly: true })
  const settled = outbox
    .query('SELECT status, attempts, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts')
    .all() as { status: string; attempts: number; n: number }[]
  outbox.close()
  const firstTry = settled.find((row) => row.status === 'delivered' && row.attempts === 1)?.n ?? 0
  if (firstTry !== answered.size)
    fail(`delivery: the outbox has ${settled.map((r) => `${r.n} ${r.status} after ${r.attempts}`).join(', ')}`)

  const latencies = new Float64Array(
    [...phase.items].filter(([id]) => answered.has(id)).map(([id, at]) => at - answered.get(id)!),
  ).sort()
  const sample = phase.messages[0]
  const template = sample
    ? {
        body: sample.body,
        itemId: (JSON.parse(sample.body) as { data: { savedItem: { id: string } } }).data.savedItem.id,
      }
    : { body: `{"type":"saved_item.created","data":{"savedItem":{"id":"${'0'.repeat(36)}"}}}`, itemId: '0'.repeat(36) }
  const drainPerSecond = (answered.size - inByLastCapture) / (seconds - captureSeconds)
  return { seconds, captureSeconds, inByLastCapture, drainPerSecond, latencies, received: phase, template }
}

async function main(): Promise<void> {
  log(
    `readlater webhooks bench: ${EVENTS} events, ${CONCURRENCY} captures in flight, ${ROUNDS} rounds of ${CAPTURE_ROUND} captures, ${machine()}`,
  )
  const pinning = pinCores()
  log(pinning)
  const pinned = pinning.startsWith('pinned')
  const dir = mkdtempSync(join(tmpdir(), 'readlater-bench-webhooks-'))

  log('part 1: captures with one webhook against none')
  const cost = await captureCost(dir)
  const receiver = startReceiver()
  let delivered: Delivery | null = null
  let plain: { perSecond: number } | null = null
  try {
    log(`part 2: ${EVENTS} captures over HTTP, delivered to ${receiver.url}`)
    delivered = await delivery(dir, receiver)
    log(`baseline: ${EVENTS} plain POSTs, ${BASELINE_IN_FLIGHT} in flight, from one Bun process`)
    plain = await plainPosts(receiver, pinned, delivered.template)
  } finally {
    await stopAll()
    receiver.stop()
  }

  const costRatio = median(cost.withHook) / median(cost.without)
  console.log(
    `\ncaptures/s with one webhook: ${cost.withHook.map(Math.round).join(', ')}; with none: ${cost.without.map(Math.round).join(', ')}`,
  )
  console.log(`  with ÷ without (medians): ${costRatio.toFixed(2)} (goal ≥ 0.80)`)
  const d = delivered
  const once = failures.some((line) => line.startsWith('delivery:')) ? 'FAIL' : 'ok'
  const perSecond = d.received.items.size / d.seconds
  console.log(
    `delivery of ${d.received.items.size} saved_item.created messages: ${perSecond.toFixed(0)} events/s (${d.seconds.toFixed(2)} s from the first capture to the last message; the captures took ${d.captureSeconds.toFixed(2)} s, ${(EVENTS / d.captureSeconds).toFixed(0)}/s over HTTP, ${CONCURRENCY} in flight)`,
  )
  console.log(
    `  ${d.inByLastCapture} messages in when the last capture was answered; the other ${d.received.items.size - d.inByLastCapture} at ${d.drainPerSecond.toFixed(0)}/s after it`,
  )
  console.log(
    `  capture answered → message received: p50 ${percentile(d.latencies, 50).toFixed(1)} ms, p99 ${percentile(d.latencies, 99).toFixed(1)} ms, max ${percentile(d.latencies, 100).toFixed(1)} ms`,
  )
  console.log(
    `  plain POSTs to the same receiver from one Bun process, ${BASELINE_IN_FLIGHT} in flight: ${plain.perSecond.toFixed(0)}/s; delivered ÷ plain ${(perSecond / plain.perSecond).toFixed(3)}`,
  )
  console.log(
    `  exactly once: ${d.received.requests} requests, ${d.received.messageIds.size} unique webhook-ids, ${d.received.items.size} items, ${d.received.duplicateMessages + d.received.duplicateItems} duplicates, every message signed and settled after one attempt: ${once}`,
  )

  console.log('\n| measure | value | ratio |')
  console.log('| --- | --- | --- |')
  console.log(
    `| captures/s, one webhook vs none (medians) | ${Math.round(median(cost.withHook))} vs ${Math.round(median(cost.without))} | ${costRatio.toFixed(2)} |`,
  )
  console.log(
    `| events delivered/s vs plain POSTs/s | ${perSecond.toFixed(0)} vs ${plain.perSecond.toFixed(0)} | ${(perSecond / plain.perSecond).toFixed(3)} |`,
  )
  console.log(
    `| messages/s drained once the captures stopped vs plain POSTs/s | ${d.drainPerSecond.toFixed(0)} vs ${plain.perSecond.toFixed(0)} | ${(d.drainPerSecond / plain.perSecond).toFixed(3)} |`,
  )
  console.log(
    `| latency capture → receipt p50 / p99 | ${percentile(d.latencies, 50).toFixed(1)} / ${percentile(d.latencies, 99).toFixed(1)} ms | |`,
  )
  console.log(`| every event exactly once | ${once} | |`)
  if (failures.length > 0) {
    for (const line of failures) console.log(`FAIL: ${line}`)
    process.exitCode = 1
  }
}

if (process.env.BENCH_WEBHOOK_POSTER) await poster()
else await main()
