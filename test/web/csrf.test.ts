import { beforeAll, describe, expect, test } from 'bun:test'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { insertAgent, snapshot, userIdOf } from './fixtures.ts'
import { WebClient } from './web-client.ts'

// Every form of the web app, with fields that would change something were the CSRF token right.
let h: Harness
let web: WebClient
let forms: { path: string; fields: Record<string, string | string[]> }[]

beforeAll(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  web = new WebClient(h)
  await web.signUp('csrf@example.com')
  const userId = await userIdOf(h, 'csrf@example.com')
  await web.get('/settings')
  await web.post('/settings/api-keys', { label: 'victim key', scope: 'saved-items:read' })
  const keyId = String((await h.db.$client.execute('SELECT id FROM api_keys')).rows[0]!.id)
  const { grantId } = await insertAgent(h, userId, 'Victim agent', ['saved-items:read'])
  await web.get('/')
  await web.post('/queue/capture', { url: 'https://example.com/victim' })
  const itemId = String((await h.db.$client.execute('SELECT id FROM saved_items')).rows[0]!.id)
  // An article with one highlight, for the reader view's highlight forms (docs/web.md#highlights).
  await h.db.$client.execute({
    sql: `INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 2, '<p>Victim text</p>', 'Victim text', '2026-11-22T10:00:00.000Z')`,
    args: [itemId],
  })
  const highlightId = '01935c6e-8b1c-7d3e-9f00-2a1b3c4d5e6f'
  await h.db.$client.execute({
    sql: `INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
      VALUES (?, ?, ?, 'Victim', '', ' text', 0, 6, 'yellow', NULL, '2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z')`,
    args: [highlightId, userId, itemId],
  })
  forms = [
    { path: '/sign-up', fields: { email: 'attacker@example.com', password: 'long enough' } },
    { path: '/sign-in', fields: { email: 'csrf@example.com', password: 'correct horse battery' } },
    { path: '/sign-out', fields: {} },
    {
      path: '/settings/api-keys',
      fields: { label: 'attacker key', scope: ['saved-items:read', 'saved-items:delete'] },
    },
    { path: `/settings/api-keys/${keyId}/revoke`, fields: {} },
    { path: `/settings/agents/${grantId}/revoke`, fields: {} },
    { path: '/queue/capture', fields: { url: 'https://evil.example/planted' } },
    { path: `/queue/items/${itemId}/read-state`, fields: { isRead: 'true' } },
    { path: `/items/${itemId}/highlights`, fields: { exact: 'text', start: '7', end: '11' } },
    { path: `/items/${itemId}/highlights/${highlightId}`, fields: { color: 'green', note: 'planted' } },
    { path: `/items/${itemId}/highlights/${highlightId}/delete`, fields: {} },
  ]
})

describe('CSRF: every form post without the right token is refused with 403 and writes nothing', () => {
  test('a signed-in person has one key, one agent, one item and one highlight to lose', async () => {
    expect(await countRows(h.db, 'api_keys')).toBe(1)
    expect(await countRows(h.db, 'oauth_grants')).toBe(1)
    expect(await countRows(h.db, 'saved_items')).toBe(1)
    expect(await countRows(h.db, 'highlights')).toBe(1)
    expect(forms).toHaveLength(11)
  })

  const variants: [string, (client: WebClient) => string | null, (client: WebClient) => WebClient][] = [
    ['no csrf field', () => null, (c) => c],
    ['a wrong token of the right shape', () => 'A'.repeat(43), (c) => c],
    ['an empty token', () => '', (c) => c],
    [
      "a token but no CSRF cookie (another browser's token)",
      (c) => c.csrf,
      (c) => {
        const stripped = new WebClient(c.harness)
        for (const [name, value] of c.cookies) if (name !== 'rl_csrf') stripped.cookies.set(name, value)
        stripped.last = c.last
        return stripped
      },
    ],
  ]

  for (const [variant, tokenOf, clientOf] of variants) {
    test(`${variant}`, async () => {
      for (const form of forms) {
        const before = await snapshot(h)
        const client = clientOf(web)
        const page = await client.post(form.path, form.fields, { csrf: tokenOf(web) })
        expect({ path: form.path, status: page.status }).toEqual({ path: form.path, status: 403 })
        expect(page.text).toContain('Form expired')
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
        expect(page.location).toBeNull()
        expect(page.setCookies.some((c) => c.includes('rl_session'))).toBe(false)
        expect({ path: form.path, unchanged: (await snapshot(h)) === before }).toEqual({
          path: form.path,
          unchanged: true,
        })
      }
    })
  }

  test('the right token sent as text/plain (what a cross-site form can send) is refused too', async () => {
    const before = await snapshot(h)
    const body = new URLSearchParams({ csrf: web.csrf, label: 'x', scope: 'saved-items:read' })
    const page = await web.request('POST', '/settings/api-keys', body, { 'content-type': 'text/plain' })
    expect(page.status).toBe(403)
    expect(await snapshot(h)).toBe(before)
  })

  test('with the right token the same forms do work (the refusals above are about the token alone)', async () => {
    await web.get('/settings')
    expect((await web.post(forms[3]!.path, forms[3]!.fields)).status).toBe(201)
    expect((await web.post(forms[4]!.path)).status).toBe(303)
    expect((await web.post(forms[5]!.path)).status).toBe(303)
    expect((await web.post(forms[6]!.path, forms[6]!.fields)).status).toBe(303)
    expect((await web.post(forms[7]!.path, forms[7]!.fields)).status).toBe(303)
    expect((await web.post(forms[2]!.path)).status).toBe(303)
    expect(await countRows(h.db, 'web_sessions')).toBe(0)
  })
})
