import { beforeEach, describe, expect, test } from 'bun:test'
import { isUuid } from '../../core/ids.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { send } from './oauth-helpers.ts'

let h: Harness
beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
})

const register = (body: unknown, contentType = 'application/json') =>
  send(h, 'POST', '/api/auth/oauth2/register', {
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

describe('POST /api/auth/oauth2/register', () => {
  test('registers a public client: 201 with its metadata and no secret', async () => {
    const reply = await register({
      client_name: 'Claude',
      redirect_uris: ['http://127.0.0.1/cb', 'https://claude.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'saved-items:read offline_access',
    })
    expect(reply.status).toBe(201)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    const body = reply.body as Record<string, unknown>
    expect(body).toEqual({
      client_id: expect.any(String),
      client_id_issued_at: Math.floor(h.clock.now().getTime() / 1000),
      client_name: 'Claude',
      redirect_uris: ['http://127.0.0.1/cb', 'https://claude.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'saved-items:read offline_access',
    })
    expect(isUuid(body.client_id as string)).toBe(true)
    expect((body.client_id as string)[14]).toBe('7')
    expect(body).not.toHaveProperty('client_secret')
    const stored = await h.db.$client.execute({
      sql: 'SELECT name, redirect_uris, scope FROM oauth_clients WHERE id = ?',
      args: [body.client_id as string],
    })
    expect(stored.rows[0]).toMatchObject({
      name: 'Claude',
      redirect_uris: '["http://127.0.0.1/cb","https://claude.example/cb"]',
      scope: 'saved-items:read offline_access',
    })
  })

  test('needs no application_type and fills the defaults', async () => {
    const reply = await register({ redirect_uris: ['com.example.app:/cb'] })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({
      client_name: 'Unnamed client',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
  })

  const rejections: [string, Record<string, unknown>, string][] = [
    ['a javascript: URI', { redirect_uris: ['javascript:alert(document.cookie)'] }, 'invalid_redirect_uri'],
    ['a data: URI', { redirect_uris: ['data:text/html,<script>alert(1)</script>'] }, 'invalid_redirect_uri'],
    ['a file: URI', { redirect_uris: ['file:///etc/passwd'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://agent.example/cb#token'] }, 'invalid_redirect_uri'],
    ['http on a non-loopback host', { redirect_uris: ['http://agent.example/cb'] }, 'invalid_redirect_uri'],
    ['no redirect URI', { client_name: 'x' }, 'invalid_redirect_uri'],
    [
      'client_secret_basic',
      { redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      'client_secret_post',
      { redirect_uris: ['https://agent.example/cb'], token_endpoint_auth_method: 'client_secret_post' },
      'invalid_client_metadata',
    ],
    [
      'an unknown grant type',
      { redirect_uris: ['https://agent.example/cb'], grant_types: ['authorization_code', 'implicit'] },
      'invalid_client_metadata',
    ],
    [
      'response_type token',
      { redirect_uris: ['https://agent.example/cb'], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    [
      'an unknown scope',
      { redirect_uris: ['https://agent.example/cb'], scope: 'saved-items:read admin' },
      'invalid_client_metadata',
    ],
    [
      'a 101-character name',
      { redirect_uris: ['https://agent.example/cb'], client_name: 'n'.repeat(101) },
      'invalid_client_metadata',
    ],
  ]
  for (const [what, body, error] of rejections) {
    test(`refuses ${what} with ${error} and stores nothing`, async () => {
      const reply = await register(body)
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual({ error, error_description: expect.any(String) })
      expect(reply.headers.get('access-control-allow-origin')).toBe('*')
      expect(await countRows(h.db, 'oauth_clients')).toBe(0)
    })
  }

  test('takes JSON only', async () => {
    const formReply = await register(
      'redirect_uris=https%3A%2F%2Fagent.example%2Fcb',
      'application/x-www-form-urlencoded',
    )
    expect(formReply.status).toBe(400)
    expect(formReply.body).toMatchObject({ error: 'invalid_client_metadata' })
    const broken = await register('{"redirect_uris": [', 'application/json')
    expect(broken.status).toBe(400)
    expect(broken.body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: 'The body is not valid JSON',
    })
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })

  test('odd bodies never cause a 5xx', async () => {
    for (const body of [
      'null',
      '[]',
      '"x"',
      '{"redirect_uris":[1]}',
      '{"redirect_uris":["https://a.example/cb"],"client_name":{"a":1}}',
      '\u0000',
      'x'.repeat(70_000),
    ]) {
      const reply = await register(body)
      expect(reply.status).toBeGreaterThanOrEqual(400)
      expect(reply.status).toBeLessThan(500)
    }
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })

  test('is rate-limited per IP with an OAuth-shaped 429', async () => {
    const limited = await createHarness({ env: { IP_RATE_LIMIT_MAX: '2' } })
    const hit = () =>
      send(limited, 'POST', '/api/auth/oauth2/register', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['https://a.example/cb'] }),
        ip: '203.0.113.9',
      })
    expect((await hit()).status).toBe(201)
    expect((await hit()).status).toBe(201)
    const refused = await hit()
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ error: 'rate_limit_exceeded', error_description: expect.any(String) })
    expect(refused.headers.get('retry-after')).not.toBeNull()
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
  })
})
