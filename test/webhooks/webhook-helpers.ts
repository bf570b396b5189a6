import { startDeliveryWorkers, type DeliveryWorkerOptions } from '../../adapters/jobs/webhook-worker.ts'
import type { SendOptions } from '../../adapters/webhooks/send.ts'
import type { Clock } from '../../core/types.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'

// Webhook tests: an in-process service on a real database, real receivers on loopback HTTP.

export interface Received {
  headers: Record<string, string>
  body: string
  at: number
}

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** What the receiver answers; the default is 204. */
  answer: (request: Request) => Response | Promise<Response>
  stop(): Promise<void>
}

/** An HTTP receiver on 127.0.0.1 that records every request, then answers with `answer`. */
export function startReceiver(answer: Receiver['answer'] = () => new Response(null, { status: 204 })): Receiver {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer,
    stop: async () => {},
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = await request.text()
      receiver.received.push({ headers: Object.fromEntries(request.headers), body, at: Date.now() })
      return receiver.answer(request)
    },
  })
  receiver.port = server.port!
  receiver.url = `http://127.0.0.1:${server.port}/hooks`
  receiver.stop = () => server.stop(true)
  return receiver
}

/** A harness whose webhooks may point at loopback receivers (ENRICH_ALLOW_PRIVATE=1), with a key holding every scope. */
export async function webhookHarness(env: Record<string, string> = {}) {
  const h = await createHarness({ env: { ENRICH_ALLOW_PRIVATE: '1', RATE_LIMIT_MAX: '1000000', ...env } })
  const user = await h.user()
  const key = await user.key()
  return { h, user, key }
}

export async function createWebhook(
  h: Harness,
  key: string,
  url: string,
  events: string[] = ['saved_item.created', 'saved_item.updated', 'saved_item.deleted', 'saved_item.enriched'],
): Promise<{ id: string; secret: string }> {
  const reply = await h.call('POST', '/v1/webhooks', { token: key, body: { url, events } })
  if (reply.status !== 201) throw new Error(`webhook not created: ${reply.status} ${reply.text}`)
  return { id: reply.body.webhook.id, secret: reply.body.secret }
}

/** This harness's delivery workers, sending through the guard with `send` (loopback allowed by default). */
export function workersFor(
  h: Harness,
  send: Partial<SendOptions> = {},
  options: Partial<DeliveryWorkerOptions> = {},
  clock: Clock = h.clock,
) {
  return startDeliveryWorkers(
    {
      db: h.db,
      clock,
      log: (level, fields) => h.logs.push({ level, ...fields }),
      encryptionKey: h.config.encryptionKey,
      send: { allowPrivate: true, userAgent: 'Readlater-Webhooks/1.0 (+test)', ...send },
    },
    { concurrency: 8, perWebhook: 4, pollMs: 20, ...options },
  )
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `probe` is truthy or the time is up. */
export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

export async function outboxRows(h: Harness): Promise<Record<string, unknown>[]> {
  const result = await h.db.$client.execute(
    'SELECT id, webhook_id, type, entity_id, body, status, attempts, run_after_ms, lease_until_ms, response_status, last_error, created_at_ms FROM webhook_deliveries ORDER BY seq',
  )
  return result.rows as unknown as Record<string, unknown>[]
}
