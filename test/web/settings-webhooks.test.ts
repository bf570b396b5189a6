import { afterAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { SCOPES } from '../../core/types.ts'
import { WEBHOOK_EVENTS } from '../../core/webhooks/events.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { userIdOf } from './fixtures.ts'
import { apiKeyFor, captureItem } from './reader-fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

// Settings' "Webhooks" section over HTTP (docs/web.md#webhooks): add, list, "Send test", "Delete" and the
// delivery history, against a real receiver on loopback (ENRICH_ALLOW_PRIVATE=1 lets webhooks reach it).

const env = { IP_RATE_LIMIT_MAX: '1000', ENRICH_ALLOW_PRIVATE: '1' }

interface Receiver {
  url: string
  received: { headers: Record<string, string>; body: string }[]
}

const servers: { stop(force?: boolean): unknown }[] = []
afterAll(async () => {
  for (const server of servers) await server.stop(true)
})

/** A webhook receiver on 127.0.0.1 that records each request and answers `status`. */
function startReceiver(status = 204): Receiver {
  const receiver: Receiver = { url: '', received: [] }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      receiver.received.push({ headers: Object.fromEntries(request.headers), body: await request.text() })
      return new Response(null, { status })
    },
  })
  servers.push(server)
  receiver.url = `http://127.0.0.1:${server.port}/hooks`
  return receiver
}

async function signedIn(
  email: string,
  options: { harness?: Harness; env?: Record<string, string> } = {},
): Promise<{ h: Harness; web: WebClient; userId: string }> {
  const h = options.harness ?? (await createHarness({ env: options.env ?? env }))
  const web = new WebClient(h)
  await web.signUp(email)
  await web.get('/settings')
  return { h, web, userId: await userIdOf(h, email) }
}

const SECRET_IN_PAGE = /<code id="new-webhook-secret" class="secret">(whsec_[A-Za-z0-9+/=]{44})<\/code>/

/** Adds a webhook through the form; returns its id (from the API) and the secret the page showed. */
async function addWebhook(
  web: WebClient,
  url: string,
  events: string[] = ['saved_item.created'],
): Promise<{ id: string; secret: string }> {
  const page = await web.post('/settings/webhooks', { url, event: events })
  expect(page.status).toBe(201)
  const secret = SECRET_IN_PAGE.exec(page.text)![1]!
  const id = new RegExp(`<h3 id="webhook-([0-9a-f-]{36})">${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</h3>`).exec(
    page.text,
  )![1]!
  return { id, secret }
}

const webhookRows = async (h: Harness) =>
  (await h.db.$client.execute('SELECT id, user_id, url, events FROM webhooks ORDER BY rowid')).rows.map((row) => ({
    ...row,
  }))

describe('GET /settings › Webhooks', () => {
  test('shows "Webhook URL", one unchecked checkbox per event, "Add webhook", and no webhooks yet', async () => {
    const { web } = await signedIn('section@example.com')
    const page = web.last!
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h2 id="webhooks">Webhooks</h2>')
    expect(page.text).toContain('<label for="webhook-url">Webhook URL</label>')
    expect(page.text).toContain('<input id="webhook-url" name="url" type="url" required maxlength="2048" value=""')
    WEBHOOK_EVENTS.forEach((event, i) => {
      expect(page.text).toContain(
        `<input type="checkbox" id="webhook-event-${i}" name="event" value="${event}"><label for="webhook-event-${i}">${event}</label>`,
      )
    })
    expect(page.text).toContain('<button type="submit">Add webhook</button>')
    expect(textOf(page.text)).toContain('No webhooks yet.')
  })

  test('the API-key form offers webhooks:manage, unchecked like every scope', async () => {
    const { web } = await signedIn('scope@example.com')
    const i = SCOPES.indexOf('webhooks:manage')
    expect(i).toBeGreaterThanOrEqual(0)
    expect(web.last!.text).toContain(
      `<input type="checkbox" id="scope-${i}" name="scope" value="webhooks:manage" aria-describedby="scope-${i}-hint"><label for="scope-${i}">webhooks:manage</label>`,
    )
    expect(web.last!.text).not.toMatch(/value="webhooks:manage"[^>]*checked/)
  })
})

describe('Adding a webhook', () => {
  test('creates it (201), shows its whsec_ secret once and lists it; a reload shows it without the secret', async () => {
    const { h, web, userId } = await signedIn('add@example.com')
    const receiver = startReceiver()
    // Events come back in the canonical order whatever order the form sent them in.
    const page = await web.post('/settings/webhooks', {
      url: `  ${receiver.url}  `,
      event: ['folder.deleted', 'saved_item.created'],
    })
    expect(page.status).toBe(201)
    const secret = SECRET_IN_PAGE.exec(page.text)![1]!
    expect(textOf(page.text)).toContain('Copy its signing secret now: it is shown only this once.')
    expect(textOf(page.text)).toContain(`Webhook added for ${receiver.url}.`)
    const rows = await webhookRows(h)
    expect(rows).toEqual([
      {
        id: expect.any(String),
        user_id: userId,
        url: receiver.url,
        events: JSON.stringify(['saved_item.created', 'folder.deleted']),
      },
    ])
    const id = String(rows[0]!.id)
    expect(page.text).toContain(`<h3 id="webhook-${id}">${receiver.url}</h3>`)
    expect(page.text).toContain(
      '<p class="webhook-events">Events: <code>saved_item.created</code>, <code>folder.deleted</code></p>',
    )
    expect(page.text).toContain('Added <time datetime="2026-11-22T10:00:00.000Z">')
    expect(page.text).toContain(`action="/settings/webhooks/${id}/test#webhook-${id}"`)
    expect(page.text).toContain(`action="/settings/webhooks/${id}/delete"`)
    expect(textOf(page.text)).toContain('No deliveries yet.')
    expect(JSON.stringify(h.logs)).not.toContain(secret)

    const key = await apiKeyFor(h, userId)
    const listed = await h.call('GET', '/v1/webhooks', { token: key })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual({
      webhooks: [
        {
          id,
          url: receiver.url,
          events: ['saved_item.created', 'folder.deleted'],
          createdAt: '2026-11-22T10:00:00.000Z',
          disabledAt: null,
        },
      ],
    })

    const again = await web.get('/settings')
    expect(again.text).not.toContain(secret)
    expect(again.text).not.toContain('new-webhook-secret')
    expect(again.text).not.toContain('whsec_')
    expect(again.text).toContain(`<h3 id="webhook-${id}">${receiver.url}</h3>`)
  })

  const bad: [string, string, string[], string][] = [
    ['an empty URL', '', ['saved_item.created'], 'Nothing was added: url must be an absolute http or https URL.'],
    [
      'a URL that is no URL',
      'example.com/hooks',
      ['saved_item.created'],
      'Nothing was added: url must be an absolute http or https URL.',
    ],
    [
      'an ftp URL',
      'ftp://example.com/hooks',
      ['saved_item.created'],
      'Nothing was added: url must be http or https, not ftp:.',
    ],
    ['no event', 'https://example.com/hooks', [], 'Nothing was added: events must name at least one event type.'],
    [
      'an unknown event',
      'https://example.com/hooks',
      ['saved_item.created', 'user.created'],
      'Nothing was added: Unknown event type &quot;user.created&quot;',
    ],
  ]
  test.each(bad)(
    '%s: 422 with the reason next to the form, choices kept, nothing written',
    async (_, url, events, error) => {
      const { h, web } = await signedIn(`bad-${Math.random()}@example.com`)
      const page = await web.post('/settings/webhooks', { url, event: events })
      expect(page.status).toBe(422)
      expect(page.text).toContain(`<p class="error" role="alert">${error}`)
      expect(page.text).toContain(`value="${url}"`)
      if (events.includes('saved_item.created'))
        expect(page.text).toContain('name="event" value="saved_item.created" checked>')
      expect(page.text).not.toContain('whsec_')
      expect(await countRows(h.db, 'webhooks')).toBe(0)
    },
  )

  test.each([
    ['a private address', 'http://10.1.2.3/hooks', 'Nothing was added: url points to a non-public address ('],
    ['loopback', 'http://127.0.0.1/hooks', 'Nothing was added: url points to a non-public address ('],
    ['localhost', 'http://localhost/hooks', 'Nothing was added: url points to this machine (localhost).'],
    ['port 8080', 'https://example.com:8080/hooks', 'Nothing was added: url port 8080 is not allowed'],
  ])('%s without ENRICH_ALLOW_PRIVATE: refused with the reason, nothing written', async (_, url, error) => {
    const { h, web } = await signedIn(`private-${Math.random()}@example.com`, { env: { IP_RATE_LIMIT_MAX: '1000' } })
    const page = await web.post('/settings/webhooks', { url, event: ['saved_item.created'] })
    expect(page.status).toBe(422)
    expect(page.text).toContain(`<p class="error" role="alert">${error}`)
    expect(page.text).not.toContain('whsec_')
    expect(await countRows(h.db, 'webhooks')).toBe(0)
  })

  test('an 11th webhook is refused with the limit, the 10 kept', async () => {
    const { h, web } = await signedIn('limit@example.com')
    for (let i = 0; i < 10; i++) await addWebhook(web, `https://hooks${i}.example.com/in`)
    const page = await web.post('/settings/webhooks', {
      url: 'https://eleven.example.com/in',
      event: ['folder.created'],
    })
    expect(page.status).toBe(422)
    expect(page.text).toContain(
      '<p class="error" role="alert">Nothing was added: You already have 10 webhooks, the limit; delete one first.</p>',
    )
    expect(await countRows(h.db, 'webhooks')).toBe(10)
  })

  test('a hostile URL comes back in the form as text, never as markup', async () => {
    const { h, web } = await signedIn('hostile@example.com')
    const hostile = 'javascript:"><script>alert(1)</script>'
    const page = await web.post('/settings/webhooks', { url: hostile, event: ['saved_item.created'] })
    expect(page.status).toBe(422)
    expect(page.text).not.toContain('<script>alert(1)')
    expect(page.text).toContain('value="javascript:&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(await countRows(h.db, 'webhooks')).toBe(0)
  })
})

describe('Send test', () => {
  test('delivered: the receiver gets one signed POST, the page says HTTP 204 and the history lists it', async () => {
    const { h, web } = await signedIn('test-ok@example.com')
    const receiver = startReceiver(204)
    const { id, secret } = await addWebhook(web, receiver.url, ['saved_item.created', 'folder.created'])
    const page = await web.post(`/settings/webhooks/${id}/test`)
    expect(page.status).toBe(200)
    expect(page.text).toContain(
      '<p class="notice test-outcome" role="status">Test message delivered: the receiver answered HTTP 204.</p>',
    )
    expect(receiver.received).toHaveLength(1)
    const [request] = receiver.received
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'webhook.test', data: { webhook: { id } } })
    const signed = new Webhook(secret).sign(
      request!.headers['webhook-id']!,
      new Date(Number(request!.headers['webhook-timestamp']) * 1000),
      request!.body,
    )
    expect(request!.headers['webhook-signature']).toBe(signed)
    const rows = (await h.db.$client.execute('SELECT type, status, attempts, response_status FROM webhook_deliveries'))
      .rows
    expect(rows.map((row) => [row.type, row.status, Number(row.attempts), Number(row.response_status)])).toEqual([
      ['webhook.test', 'delivered', 1, 204],
    ])
    expect(page.text).toContain('<td data-label="Type"><code>webhook.test</code></td>')
    expect(page.text).toContain('<td data-label="Status">delivered</td>')
    expect(page.text).toContain('<td data-label="Attempts">1</td>')
    expect(page.text).toContain(
      '<td data-label="Last attempt"><time datetime="2026-11-22T10:00:00.000Z">2026-11-22 10:00\u00a0UTC</time></td>',
    )
    expect(page.text).toContain('<td data-label="Response">HTTP 204</td>')
    // The outcome belongs to this answer; the history keeps the test.
    const again = await web.get('/settings')
    expect(again.text).not.toContain('test-outcome')
    expect(again.text).toContain('<td data-label="Status">delivered</td>')
  })

  test('failed: a receiver answering 500 is shown as failed with the error', async () => {
    const { web } = await signedIn('test-fail@example.com')
    const receiver = startReceiver(500)
    const { id } = await addWebhook(web, receiver.url)
    const page = await web.post(`/settings/webhooks/${id}/test`)
    expect(page.status).toBe(200)
    const host = new URL(receiver.url).host
    expect(page.text).toContain(
      `<p class="error test-outcome" role="alert">Test message failed: ${host} answered HTTP 500.</p>`,
    )
    expect(page.text).toContain('<td data-label="Status">failed</td>')
    expect(page.text).toContain(`<td data-label="Response">${host} answered HTTP 500</td>`)
    expect(receiver.received).toHaveLength(1)
  })
})

describe('Delivery history', () => {
  test('a capture the webhook is subscribed to shows as saved_item.created, pending; others show nothing', async () => {
    const { h, web, userId } = await signedIn('history@example.com')
    const subscribed = await addWebhook(web, 'https://subscribed.example.com/in', ['saved_item.created'])
    const other = await addWebhook(web, 'https://other.example.com/in', ['folder.created'])
    await captureItem(h, await apiKeyFor(h, userId), 'https://example.com/article')
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(1)
    const page = await web.get('/settings')
    const card = (id: string) => page.text.slice(page.text.indexOf(`id="webhook-${id}"`)).split('</article>')[0]!
    const row = card(subscribed.id)
    expect(row).toContain('<td data-label="Type"><code>saved_item.created</code></td>')
    expect(row).toContain('<td data-label="Status">pending</td>')
    expect(row).toContain('<td data-label="Attempts">0</td>')
    expect(row).toContain('<td data-label="Last attempt"><span class="muted">never</span></td>')
    expect(row).toContain('<td data-label="Response"><span class="muted">none yet</span></td>')
    expect(textOf(card(other.id))).toContain('No deliveries yet.')
  })

  test('a disabled webhook says so, and that deleting and adding it again starts over', async () => {
    const { h, web } = await signedIn('disabled@example.com')
    const { id } = await addWebhook(web, 'https://gone.example.com/in')
    await h.db.$client.execute({
      sql: 'UPDATE webhooks SET disabled_at = ? WHERE id = ?',
      args: ['2026-11-23T08:15:00.000Z', id],
    })
    const text = textOf((await web.get('/settings')).text)
    expect(text).toContain(
      'Disabled since 2026-11-23 08:15 UTC , after 20 failed deliveries in a row: no events are sent to it. Deleting it and adding it again starts over.',
    )
  })
})

describe('Deleting a webhook', () => {
  test('303 to the notice, gone from the API and the page; a second delete is 404', async () => {
    const { h, web, userId } = await signedIn('delete@example.com')
    const { id } = await addWebhook(web, 'https://bye.example.com/in')
    await captureItem(h, await apiKeyFor(h, userId), 'https://example.com/waiting')
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(1)
    const page = await web.post(`/settings/webhooks/${id}/delete`)
    expect(page.status).toBe(303)
    expect(page.location).toBe('/settings?done=webhook-deleted')
    expect(await countRows(h.db, 'webhooks')).toBe(0)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
    const key = await apiKeyFor(h, userId)
    expect((await h.call('GET', '/v1/webhooks', { token: key })).body).toEqual({ webhooks: [] })
    const settings = await web.get(page.location!)
    expect(textOf(settings.text)).toContain('Webhook deleted.')
    expect(settings.text).not.toContain('bye.example.com')
    expect(textOf(settings.text)).toContain('No webhooks yet.')
    const again = await web.post(`/settings/webhooks/${id}/delete`)
    expect(again.status).toBe(404)
    expect(textOf(again.text)).toContain('There is no webhook with that id.')
  })
})

describe("Another person's webhook", () => {
  test('cannot be tested or deleted (404 like a missing one), nor seen; nothing is sent or changed', async () => {
    const receiver = startReceiver()
    const { h, web: mine } = await signedIn('hook-owner@example.com')
    const { id } = await addWebhook(mine, receiver.url)
    const { web: theirs } = await signedIn('hook-intruder@example.com', { harness: h })
    const before = JSON.stringify(await webhookRows(h))
    for (const action of ['test', 'delete']) {
      const page = await theirs.post(`/settings/webhooks/${id}/${action}`)
      expect(page.status).toBe(404)
      expect(page.text).toContain('<h1>No such webhook</h1>')
      expect(page.text).toContain('href="/settings">Back to settings</a>')
    }
    const missing = await theirs.post('/settings/webhooks/00000000-0000-7000-8000-000000000000/test')
    expect(missing.status).toBe(404)
    expect(missing.text).toContain('<h1>No such webhook</h1>')
    expect(JSON.stringify(await webhookRows(h))).toBe(before)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
    expect(receiver.received).toHaveLength(0)
    expect((await theirs.get('/settings')).text).not.toContain(receiver.url)
  })
})

describe('CSRF', () => {
  test('add, test and delete without the CSRF field are refused with 403 "Form expired"; nothing written or sent', async () => {
    const receiver = startReceiver()
    const { h, web } = await signedIn('csrf@example.com')
    const { id } = await addWebhook(web, receiver.url)
    for (const [path, fields] of [
      ['/settings/webhooks', { url: 'https://example.com/in', event: 'saved_item.created' }],
      [`/settings/webhooks/${id}/test`, {}],
      [`/settings/webhooks/${id}/delete`, {}],
    ] as const) {
      for (const csrf of [null, 'forged-token']) {
        const page = await web.post(path, fields, { csrf })
        expect(page.status).toBe(403)
        expect(page.text).toContain('<h1>Form expired</h1>')
        expect(page.text).toContain('href="/settings">Reload the form</a>')
      }
    }
    expect(await countRows(h.db, 'webhooks')).toBe(1)
    expect(await countRows(h.db, 'webhook_deliveries')).toBe(0)
    expect(receiver.received).toHaveLength(0)
  })

  test('signed out: the forms send to sign-in and write nothing', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.get('/sign-in')
    const page = await web.post('/settings/webhooks', { url: 'https://example.com/in', event: 'saved_item.created' })
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in')
    expect(await countRows(h.db, 'webhooks')).toBe(0)
  })
})
