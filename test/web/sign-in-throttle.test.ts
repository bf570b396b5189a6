import { describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { form, registerClient, send, signedIn } from '../oauth/oauth-helpers.ts'
import { userWithPassword } from './fixtures.ts'
import { WebClient, textOf } from './web-client.ts'

// Guessing limits beyond the per-IP one (docs/security.md#sign-up-and-sign-in, docs/api.md#rate-limits).

const person = async (h: Harness, email: string): Promise<void> => {
  await userWithPassword(h, email, 'right password')
}

describe('per-account sign-in throttling', () => {
  test('10 failures from 10 addresses lock the account for the window, the right password included; then it opens', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    await person(h, 'target@example.com')
    for (let i = 0; i < 10; i++) {
      const page = await new WebClient(h, { ip: `203.0.113.${i}` }).signIn('target@example.com', `guess ${i}`)
      expect(page.status).toBe(401)
    }
    const locked = await new WebClient(h, { ip: '198.51.100.1' }).signIn('Target@example.com', 'right password')
    expect(locked.status).toBe(429)
    expect(textOf(locked.text)).toMatch(/Too many failed sign-ins for this account\. Try again in \d+ minutes?\./)
    expect(locked.setCookies.some((c) => c.startsWith('rl_session='))).toBe(false)
    // Other accounts are not affected.
    await person(h, 'bystander@example.com')
    expect((await new WebClient(h).signIn('bystander@example.com', 'right password')).status).toBe(303)
    h.clock.advance(15 * 60_000)
    expect((await new WebClient(h).signIn('target@example.com', 'right password')).status).toBe(303)
  })

  test('an email without an account locks the same way, so the lock reveals nothing', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    for (let i = 0; i < 10; i++)
      await new WebClient(h, { ip: `203.0.113.${i}` }).signIn('nobody@example.com', `guess ${i}`)
    const locked = await new WebClient(h).signIn('nobody@example.com', 'anything')
    expect(locked.status).toBe(429)
    const rows = await h.db.$client.execute("SELECT bucket FROM rate_limits WHERE bucket LIKE 'signin-account:%'")
    expect(rows.rows).toHaveLength(1)
    expect(String(rows.rows[0]!.bucket)).not.toContain('nobody')
  })
})

describe('per-IP limits on the authorization endpoints', () => {
  test('authorize (page), consent (page) and revoke (OAuth JSON) each have their own bucket of IP_RATE_LIMIT_MAX', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '2' } })
    const client = await registerClient(h)
    const browser = await signedIn(h)
    const authorize = `/api/auth/oauth2/authorize?client_id=${client.client_id}&response_type=code`
    const hits = async (method: string, path: string, init: Parameters<typeof send>[3]): Promise<number[]> =>
      [await send(h, method, path, init), await send(h, method, path, init), await send(h, method, path, init)].map(
        (reply) => reply.status,
      )
    expect((await hits('GET', authorize, { headers: { cookie: browser.cookie } }))[2]).toBe(429)
    const consent = await send(h, 'POST', '/api/auth/oauth2/consent', { headers: { cookie: browser.cookie } })
    expect(consent.status).toBe(403) // its own bucket: the first consent POST still gets through (and fails its CSRF check)
    const consentStatuses = [
      consent.status,
      ...(await hits('POST', '/api/auth/oauth2/consent', { headers: { cookie: browser.cookie } })).slice(1),
    ]
    expect(consentStatuses.at(-1)).toBe(429)
    const revokes = await hits(
      'POST',
      '/api/auth/oauth2/revoke',
      form({ token: 'nothing', client_id: client.client_id }),
    )
    expect(revokes).toEqual([200, 200, 429])
    const refused = await send(
      h,
      'POST',
      '/api/auth/oauth2/revoke',
      form({ token: 'nothing', client_id: client.client_id }),
    )
    expect(refused.body).toMatchObject({ error: 'rate_limit_exceeded' })
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    const page = await send(h, 'GET', authorize, { headers: { cookie: browser.cookie } })
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('Too many attempts')
  })
})
