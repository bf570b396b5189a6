import { afterEach, describe, expect, test } from 'bun:test'
import { createServer as createNetServer, type Server as NetServer } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { systemClock } from '../../core/time.ts'
import { DELIVERY_LEASE_MS, RETRY_DELAYS_MS } from '../../core/webhooks/retry-schedule.ts'
import { claimDelivery } from '../../adapters/storage/webhooks.ts'
import {
  createWebhook,
  outboxRows,
  type Receiver,
  sleep,
  startReceiver,
  until,
  webhookHarness,
  workersFor,
} from './webhook-helpers.ts'

// docs/webhooks.md#delivery: Standard Webhooks signatures, the retry schedule, the address guard on every
// attempt, no redirects, the timeout, auto-disable, per-item order, and a queue that never stalls.

const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
function receiver(answer?: Receiver['answer']): Receiver {
  const r = startReceiver(answer)
  cleanups.push(() => r.stop())
  return r
}
function workers(...args: Parameters<typeof workersFor>) {
  const w = workersFor(...args)
  cleanups.push(() => w.stop())
  return w
}
const capture = async (h: Awaited<ReturnType<typeof webhookHarness>>['h'], key: string, url: string) =>
  (await h.call('POST', '/v1/captures', { token: key, body: { url } })).body.savedItem

async function hmac(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    Buffer.from(secret.slice('whsec_'.length), 'base64'),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(content))).toString('base64')
}

describe('a delivered message', () => {
  test('is the item as the API shows it, signed per Standard Webhooks: the reference verifier and a plain HMAC agree', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver()
    const hook = await createWebhook(h, key, r.url)
    const item = await capture(h, key, 'https://a.example/ünïcode?q=1')
    const [queued] = await outboxRows(h)
    // The real clock: the verifier refuses timestamps more than 5 minutes from now.
    workers(h, {}, {}, systemClock)
    await until('delivery', () => r.received.length === 1)
    const got = r.received[0]!
    // The body the first attempt wrote to the outbox is the one sent, so every retry sends the same bytes.
    expect(got.body).toBe(String((await outboxRows(h))[0]!.body))
    expect(Object.keys(JSON.parse(got.body))).toEqual(['type', 'timestamp', 'data'])
    // The wire shape exactly, fields in order: what GET /v1/saved-items answers.
    const listed = (await h.call('GET', '/v1/saved-items', { token: key })).body.savedItems[0]
    expect(JSON.stringify(JSON.parse(got.body).data.savedItem)).toBe(JSON.stringify(listed))
    expect(JSON.parse(got.body).timestamp).toBe(new Date(Number(queued!.created_at_ms)).toISOString())
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['webhook-id']).toBe(String(queued!.id))
    expect(got.headers['user-agent']).toBe('Readlater-Webhooks/1.0 (+test)')
    const payload = new Webhook(hook.secret).verify(got.body, got.headers) as any
    expect(payload.type).toBe('saved_item.created')
    expect(payload.data.savedItem).toEqual(item)
    const expected = await hmac(
      hook.secret,
      `${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`,
    )
    expect(got.headers['webhook-signature']).toBe(`v1,${expected}`)
    // A tampered body or another secret does not verify.
    expect(() => new Webhook(hook.secret).verify(`${got.body} `, got.headers)).toThrow()
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, got.headers)).toThrow()
    await until('settled', async () => (await outboxRows(h))[0]!.status === 'delivered')
    const [row] = await outboxRows(h)
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, response_status: 204, lease_until_ms: null })
  }, 15_000)

  test('the webhook-timestamp is the attempt’s time in Unix seconds', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver()
    await createWebhook(h, key, r.url)
    await capture(h, key, 'https://a.example/')
    workers(h, {}, {})
    await until('delivery', () => r.received.length === 1)
    expect(r.received[0]!.headers['webhook-timestamp']).toBe(String(Math.floor(h.clock.now().getTime() / 1000)))
  })

  test('carries the item as it is at the first attempt; every retry sends the same bytes', async () => {
    const { h, key } = await webhookHarness()
    let status = 500
    const r = receiver(() => new Response(null, { status }))
    await createWebhook(h, key, r.url, ['saved_item.created'])
    const item = await capture(h, key, 'https://a.example/')
    await h.call('POST', `/v1/saved-items/${item.id}/read`, { token: key })
    workers(h)
    await until('attempt 1', () => r.received.length === 1)
    expect(JSON.parse(r.received[0]!.body).data.savedItem).toMatchObject({ id: item.id, isRead: true })
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.lease_until_ms === null)
    await h.call('POST', `/v1/saved-items/${item.id}/unread`, { token: key })
    status = 204
    h.clock.advance(RETRY_DELAYS_MS[0])
    await until('attempt 2', () => r.received.length === 2)
    expect(r.received[1]!.body).toBe(r.received[0]!.body)
  })
})

describe('failures and retries', () => {
  test('a 500 is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then the delivery is failed', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver(() => new Response('down', { status: 500 }))
    const hook = await createWebhook(h, key, r.url)
    await capture(h, key, 'https://a.example/')
    workers(h)
    await until('attempt 1', () => r.received.length === 1)
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      await until(
        'retry scheduled',
        async () =>
          Number((await outboxRows(h))[0]!.attempts) === i + 1 && (await outboxRows(h))[0]!.lease_until_ms === null,
      )
      const [row] = await outboxRows(h)
      expect(Number(row!.run_after_ms)).toBe(h.clock.now().getTime() + delay)
      expect(row).toMatchObject({ status: 'pending', response_status: 500 })
      expect(String(row!.last_error)).toContain('answered HTTP 500')
      // Not a millisecond early.
      h.clock.advance(delay - 1)
      await sleep(80)
      expect(r.received.length).toBe(i + 1)
      h.clock.advance(1)
      await until(`attempt ${i + 2}`, () => r.received.length === i + 2)
    }
    await until('failed', async () => (await outboxRows(h))[0]!.status === 'failed')
    expect((await outboxRows(h))[0]).toMatchObject({ attempts: 7, response_status: 500 })
    // The same message id on every attempt.
    expect(new Set(r.received.map((m) => m.headers['webhook-id'])).size).toBe(1)
    const [hookRow] = (
      await h.db.$client.execute({ sql: 'SELECT failures_in_row FROM webhooks WHERE id = ?', args: [hook.id] })
    ).rows
    expect(Number(hookRow!.failures_in_row)).toBe(1)
    h.clock.advance(100 * 3600_000)
    await sleep(80)
    expect(r.received.length).toBe(7)
  }, 20_000)

  test('a 302 is a failure and is not followed', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver((request) =>
      new URL(request.url).pathname === '/hooks'
        ? new Response(null, { status: 302, headers: { location: '/elsewhere' } })
        : new Response(null, { status: 204 }),
    )
    await createWebhook(h, key, r.url)
    await capture(h, key, 'https://a.example/')
    workers(h)
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.response_status === 302)
    await sleep(50)
    expect(r.received.length).toBe(1)
    const [row] = await outboxRows(h)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: 302 })
    expect(String(row!.last_error)).toContain('redirects are not followed')
  })

  test('a receiver that does not answer in time is retried, its connection dropped', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver(() => new Promise<Response>(() => {}))
    await createWebhook(h, key, r.url)
    await capture(h, key, 'https://a.example/')
    workers(h, { timeoutMs: 300 })
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.last_error !== null)
    const [row] = await outboxRows(h)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: null })
    expect(String(row!.last_error)).toBe('127.0.0.1:' + r.port + ' did not answer within 0.3 s')
  })

  test('a connection reset is retried', async () => {
    const { h, key } = await webhookHarness()
    const reset: NetServer = createNetServer((socket) => socket.on('data', () => socket.resetAndDestroy()))
    await new Promise<void>((done) => reset.listen(0, '127.0.0.1', done))
    cleanups.push(() => new Promise((done) => reset.close(done)))
    const port = (reset.address() as { port: number }).port
    await createWebhook(h, key, `http://127.0.0.1:${port}/hooks`)
    await capture(h, key, 'https://a.example/')
    workers(h)
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.last_error !== null)
    const [row] = await outboxRows(h)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: null })
    expect(String(row!.last_error)).toBe(`Could not connect to 127.0.0.1:${port}`)
  })

  test('a private address is refused without a request, and the delivery is failed at once', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver()
    await createWebhook(h, key, 'http://hooks.example.com/in')
    await capture(h, key, 'https://a.example/')
    workers(h, {
      allowPrivate: false,
      lookup: async () => ['127.0.0.1'],
      // Where a request would go if the guard let it: the receiver, which must see none.
      fetchAddress: (url, address, init) => fetch(`http://${address}:${r.port}${url.pathname}`, init),
    })
    await until('failed', async () => (await outboxRows(h))[0]!.status === 'failed')
    const [row] = await outboxRows(h)
    expect(row).toMatchObject({ attempts: 1, response_status: null })
    expect(String(row!.last_error)).toContain('not a public address (loopback)')
    expect(r.received.length).toBe(0)
  })

  test('the address is checked again on every attempt: a name that turns private is refused', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver(() => new Response(null, { status: 503 }))
    await createWebhook(h, key, 'http://hooks.example.com/in')
    await capture(h, key, 'https://a.example/')
    const answers = ['93.184.215.14', '10.0.0.7']
    const looked: string[] = []
    workers(h, {
      allowPrivate: false,
      lookup: async (name) => {
        looked.push(name)
        return [answers.shift() ?? '10.0.0.7']
      },
      // The "public" address is this test's receiver.
      fetchAddress: (url, address, init) => fetch(`http://127.0.0.1:${r.port}${url.pathname}`, init),
    })
    await until('attempt 1', () => r.received.length === 1)
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.lease_until_ms === null)
    h.clock.advance(RETRY_DELAYS_MS[0])
    await until('failed', async () => (await outboxRows(h))[0]!.status === 'failed')
    expect(looked).toEqual(['hooks.example.com', 'hooks.example.com'])
    expect(r.received.length).toBe(1)
    expect(String((await outboxRows(h))[0]!.last_error)).toContain('not a public address (private)')
  })

  test('20 failed deliveries in a row disable the webhook; its waiting messages fail, new changes queue none', async () => {
    const { h, key } = await webhookHarness()
    const hook = await createWebhook(h, key, 'http://127.0.0.1:9/refused')
    for (let i = 0; i < 25; i++) await capture(h, key, `https://a.example/${i}`)
    workers(h, { allowPrivate: false }, { concurrency: 1 })
    await until(
      'disabled',
      async () => (await h.call('GET', '/v1/webhooks', { token: key })).body.webhooks[0].disabledAt,
    )
    await until('all settled', async () => (await outboxRows(h)).every((row) => row.status === 'failed'))
    const rows = await outboxRows(h)
    expect(rows.filter((row) => Number(row.attempts) === 1).length).toBe(20)
    expect(rows.filter((row) => String(row.last_error).includes('webhook disabled after 20')).length).toBe(5)
    const listed = (await h.call('GET', '/v1/webhooks', { token: key })).body.webhooks[0]
    expect(listed).toMatchObject({ id: hook.id, disabledAt: h.clock.now().toISOString() })
    await capture(h, key, 'https://a.example/after')
    expect((await outboxRows(h)).length).toBe(25)
  })

  test('a delivered message resets the count of failures in a row', async () => {
    const { h, key } = await webhookHarness()
    let fail = true
    const r = receiver(() => new Response(null, { status: fail ? 500 : 200 }))
    const hook = await createWebhook(h, key, r.url)
    await h.db.$client.execute({ sql: 'UPDATE webhooks SET failures_in_row = 19 WHERE id = ?', args: [hook.id] })
    await capture(h, key, 'https://a.example/')
    workers(h)
    await until('attempt 1', () => r.received.length === 1)
    fail = false
    await until('retry scheduled', async () => (await outboxRows(h))[0]!.lease_until_ms === null)
    h.clock.advance(RETRY_DELAYS_MS[0])
    await until('delivered', async () => (await outboxRows(h))[0]!.status === 'delivered')
    const [row] = (
      await h.db.$client.execute({
        sql: 'SELECT failures_in_row, disabled_at FROM webhooks WHERE id = ?',
        args: [hook.id],
      })
    ).rows
    expect(row).toMatchObject({ failures_in_row: 0, disabled_at: null })
  })
})

describe('the queue', () => {
  test('a hanging receiver holds at most 4 workers; another webhook’s messages keep flowing', async () => {
    const { h, key, user } = await webhookHarness()
    const stuck = receiver(() => new Promise<Response>(() => {}))
    const healthy = receiver()
    await createWebhook(h, key, stuck.url)
    const otherKey = await (await h.user()).key()
    await createWebhook(h, otherKey, healthy.url)
    for (let i = 0; i < 20; i++) await capture(h, key, `https://stuck.example/${i}`)
    for (let i = 0; i < 20; i++) await capture(h, otherKey, `https://fine.example/${i}`)
    workers(h, { timeoutMs: 2_000 })
    await until('the healthy webhook got everything', () => healthy.received.length === 20, 1_500)
    expect(stuck.received.length).toBe(4)
    void user
  })

  test('messages about one item go out in order; a failed one holds back the next about the same item only', async () => {
    const { h, key } = await webhookHarness()
    let failFirst = true
    const r = receiver((request) => {
      void request
      if (failFirst) {
        failFirst = false
        return new Response(null, { status: 500 })
      }
      return new Response(null, { status: 204 })
    })
    await createWebhook(h, key, r.url)
    const a = await capture(h, key, 'https://a.example/')
    await h.call('POST', `/v1/saved-items/${a.id}/read`, { token: key })
    const b = await capture(h, key, 'https://b.example/')
    workers(h)
    await until('b delivered', () => r.received.some((m) => JSON.parse(m.body).data.savedItem.id === b.id))
    await sleep(100)
    // a's created failed once; its update waits behind it.
    const aMessages = () =>
      r.received.filter((m) => JSON.parse(m.body).data.savedItem.id === a.id).map((m) => JSON.parse(m.body).type)
    expect(aMessages()).toEqual(['saved_item.created'])
    h.clock.advance(RETRY_DELAYS_MS[0])
    await until('a delivered', () => aMessages().length === 3)
    expect(aMessages()).toEqual(['saved_item.created', 'saved_item.created', 'saved_item.updated'])
  })

  test('a message held by a process that died is sent once its lease runs out', async () => {
    const { h, key } = await webhookHarness()
    const r = receiver()
    await createWebhook(h, key, r.url)
    await capture(h, key, 'https://a.example/')
    const now = h.clock.now().getTime()
    expect(await claimDelivery(h.db, now, now + DELIVERY_LEASE_MS, 4)).not.toBeNull()
    workers(h)
    await sleep(100)
    expect(r.received.length).toBe(0)
    h.clock.advance(DELIVERY_LEASE_MS)
    await until('delivered', () => r.received.length === 1)
    await until('settled', async () => (await outboxRows(h))[0]!.status === 'delivered')
    expect((await outboxRows(h))[0]).toMatchObject({ attempts: 2 })
  })
})

describe('POST /v1/webhooks/{id}/test and GET /v1/webhooks/{id}/deliveries', () => {
  test('sends a signed webhook.test now and answers with its outcome; the deliveries list shows it', async () => {
    const { h, key } = await webhookHarness()
    let status = 204
    const r = receiver(() => new Response(null, { status }))
    const hook = await createWebhook(h, key, r.url)
    const ok = await h.call('POST', `/v1/webhooks/${hook.id}/test`, { token: key })
    expect(ok.status).toBe(200)
    expect(ok.body.delivery).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      type: 'webhook.test',
      status: 'delivered',
      attempts: 1,
      createdAt: h.clock.now().toISOString(),
      lastAttemptAt: h.clock.now().toISOString(),
      nextAttemptAt: null,
      responseStatus: 204,
      error: null,
    })
    expect(r.received.length).toBe(1)
    const sent = r.received[0]!
    expect(sent.headers['webhook-id']).toBe(ok.body.delivery.id)
    const expected = await hmac(
      hook.secret,
      `${sent.headers['webhook-id']}.${sent.headers['webhook-timestamp']}.${sent.body}`,
    )
    expect(sent.headers['webhook-signature']).toBe(`v1,${expected}`)
    expect(JSON.parse(sent.body)).toMatchObject({
      type: 'webhook.test',
      data: { webhook: { id: hook.id, url: r.url } },
    })

    status = 500
    const failed = await h.call('POST', `/v1/webhooks/${hook.id}/test`, { token: key })
    expect(failed.body.delivery).toMatchObject({
      status: 'failed',
      responseStatus: 500,
      attempts: 1,
      nextAttemptAt: null,
    })
    expect(failed.body.delivery.error).toContain('answered HTTP 500')
    // A test never counts toward disabling.
    const [row] = (
      await h.db.$client.execute({ sql: 'SELECT failures_in_row FROM webhooks WHERE id = ?', args: [hook.id] })
    ).rows
    expect(Number(row!.failures_in_row)).toBe(0)

    await capture(h, key, 'https://a.example/')
    const list = await h.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { token: key })
    expect(list.status).toBe(200)
    expect(list.body.deliveries.map((d: any) => [d.type, d.status])).toEqual([
      ['saved_item.created', 'pending'],
      ['webhook.test', 'failed'],
      ['webhook.test', 'delivered'],
    ])
    expect(list.body.deliveries[0]).toMatchObject({ attempts: 0, lastAttemptAt: null, responseStatus: null })
    expect(list.body.deliveries[0].nextAttemptAt).not.toBeNull()
  })

  test('deliveries lists the 20 newest only', async () => {
    const { h, key } = await webhookHarness()
    const hook = await createWebhook(h, key, 'https://hooks.example.com/in')
    for (let i = 0; i < 25; i++) await capture(h, key, `https://a.example/${i}`)
    const list = await h.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { token: key })
    expect(list.body.deliveries.length).toBe(20)
    const rows = await outboxRows(h)
    expect(list.body.deliveries.map((d: any) => d.id)).toEqual(
      rows
        .slice(5)
        .reverse()
        .map((row) => row.id),
    )
  })
})
