import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import { createClient } from '@libsql/client'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { request, runServerCommand, startServer, type ServerProcess } from './processes.ts'

// docs/webhooks.md#delivery, with real `bun server.ts` processes on one database file: an event committed
// by a process that dies before sending is sent by the next one; two processes sending from one outbox
// send each message once; a burst of 10,000 captures arrives whole, in order per item.

interface Message {
  id: string
  type: string
  itemId: string
  lastSavedAt: string
  body: string
  headers: Record<string, string>
}

const dir = mkdtempSync(join(tmpdir(), 'readlater-webhooks-e2e-'))
const servers: ServerProcess[] = []
const received: Message[] = []
let receiver: ReturnType<typeof Bun.serve>

beforeAll(() => {
  receiver = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      const parsed = JSON.parse(body)
      received.push({
        id: req.headers.get('webhook-id')!,
        type: parsed.type,
        itemId: parsed.data.savedItem?.id,
        lastSavedAt: parsed.data.savedItem?.lastSavedAt,
        body,
        headers: Object.fromEntries(req.headers),
      })
      return new Response(null, { status: 204 })
    },
  })
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop()
})
afterAll(async () => {
  await receiver.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** A fresh database with a person, a key for captures and webhooks, and a webhook to the receiver. */
async function setUp(name: string, server: ServerProcess, env: Record<string, string>) {
  const email = `${name}@example.com`
  expect(
    (await runServerCommand(['user', 'create', '--email', email, '--password', 'a long password'], env)).code,
  ).toBe(0)
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      email,
      '--scopes',
      'saved-items:capture,saved-items:read,webhooks:manage',
      '--label',
      name,
    ],
    env,
  )
  const key = created.stdout.at(-1)!
  const hook = await request(server.url, 'POST', '/v1/webhooks', {
    token: key,
    body: { url: `http://127.0.0.1:${receiver.port}/${name}`, events: ['saved_item.created', 'saved_item.updated'] },
  })
  expect(hook.status).toBe(201)
  return { key, secret: hook.body.secret as string }
}

async function outbox(file: string): Promise<{ id: string; status: string; entity: string; seq: number }[]> {
  const client = createClient({ url: `file:${file}` })
  const rows = (await client.execute('SELECT id, status, entity_id, seq FROM webhook_deliveries ORDER BY seq')).rows
  client.close()
  return rows.map((row) => ({
    id: String(row.id),
    status: String(row.status),
    entity: String(row.entity_id),
    seq: Number(row.seq),
  }))
}

test('an event committed by a process killed before sending is sent by the next process, once', async () => {
  const file = join(dir, 'crash.db')
  const env = { DATABASE_URL: `file:${file}`, ENRICH_ALLOW_PRIVATE: '1', RATE_LIMIT_MAX: '100000' }
  received.length = 0
  // The first process commits and never sends (as if it died between the commit and the attempt).
  const first = await startServer({ ...env, WEBHOOKS: 'off' })
  servers.push(first)
  const { key, secret } = await setUp('crash', first, env)
  const urls = ['one', 'two', 'three'].map((n) => `https://crash.example/${n}`)
  for (const url of urls)
    expect((await request(first.url, 'POST', '/v1/captures', { token: key, body: { url } })).status).toBe(201)
  await first.crash()
  servers.splice(0)
  expect(received.length).toBe(0)
  expect((await outbox(file)).map((row) => row.status)).toEqual(['pending', 'pending', 'pending'])

  const second = await startServer(env)
  servers.push(second)
  await until('three messages', () => received.length >= 3, 10_000)
  await sleep(300)
  expect(received.length).toBe(3)
  expect(received.map((m) => JSON.parse(m.body).data.savedItem.originalUrl).sort()).toEqual([...urls].sort())
  for (const message of received) expect(() => new Webhook(secret).verify(message.body, message.headers)).not.toThrow()
  await until('settled', async () => (await outbox(file)).every((row) => row.status === 'delivered'), 5_000)
}, 60_000)

test('two processes on one outbox: a burst of 10,000 captures, every message once, in order per item', async () => {
  const file = join(dir, 'burst.db')
  const env = { DATABASE_URL: `file:${file}`, ENRICH_ALLOW_PRIVATE: '1', RATE_LIMIT_MAX: '1000000', LOG_LEVEL: 'warn' }
  received.length = 0
  // Migrate once before two processes start.
  expect((await runServerCommand(['user', 'list'], env)).code).toBe(0)
  const a = await startServer(env)
  const b = await startServer(env)
  servers.push(a, b)
  const { key } = await setUp('burst', a, env)
  // 2,500 pages saved four times each: a create and (at most) three updates per item, to both processes.
  const CAPTURES = 10_000
  const PAGES = 2_500
  let next = 0
  const sendOne = async () => {
    while (next < CAPTURES) {
      const i = next++
      const server = i % 2 === 0 ? a : b
      const reply = await request(server.url, 'POST', '/v1/captures', {
        token: key,
        body: { url: `https://burst.example/${i % PAGES}` },
      })
      if (reply.status !== 201 && reply.status !== 200) throw new Error(`capture ${i}: ${reply.status} ${reply.text}`)
    }
  }
  await Promise.all(Array.from({ length: 16 }, sendOne))
  const rows = await outbox(file)
  expect(rows.length).toBeGreaterThanOrEqual(PAGES + 1)
  await until('every message', () => received.length >= rows.length, 120_000)
  await until('settled', async () => (await outbox(file)).every((row) => row.status === 'delivered'), 10_000)
  await sleep(500)
  // Once each: as many arrivals as messages, no id twice, and exactly the outbox's ids.
  expect(received.length).toBe(rows.length)
  expect(new Set(received.map((m) => m.id)).size).toBe(rows.length)
  expect(new Set(received.map((m) => m.id))).toEqual(new Set(rows.map((row) => row.id)))
  // In order per item: each item's messages arrive in the outbox's order, a create first, saves ascending.
  const seqOf = new Map(rows.map((row) => [row.id, row.seq]))
  const byItem = new Map<string, Message[]>()
  for (const message of received) byItem.set(message.itemId, [...(byItem.get(message.itemId) ?? []), message])
  expect(byItem.size).toBe(PAGES)
  for (const messages of byItem.values()) {
    const seqs = messages.map((m) => seqOf.get(m.id)!)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    expect(messages[0]!.type).toBe('saved_item.created')
    expect(messages.slice(1).every((m) => m.type === 'saved_item.updated')).toBe(true)
    const saved = messages.map((m) => m.lastSavedAt)
    expect(saved).toEqual([...saved].sort())
  }
}, 240_000)
