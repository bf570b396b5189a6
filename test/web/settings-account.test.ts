import { describe, expect, test } from 'bun:test'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { codeFor, exchange, pkcePair } from '../connect/connect-fixtures.ts'
import { authorizePath, registerClient, send, signedIn as browserless, tokensFor } from '../oauth/oauth-helpers.ts'
import { userWithPassword } from './fixtures.ts'
import { WebClient, textOf } from './web-client.ts'

// Settings: where each key came from, "Delete account", and the pages' form-action policy
// (docs/web.md#pages, docs/security.md#connect-issued-keys, docs/operations.md#deleting-an-account).

const env = { IP_RATE_LIMIT_MAX: '1000' }

async function person(h: Harness, email: string): Promise<{ id: string; web: WebClient }> {
  const id = await userWithPassword(h, email, 'right password')
  const web = new WebClient(h)
  expect((await web.signIn(email, 'right password')).status).toBe(303)
  return { id, web }
}

async function mint(h: Harness, token: string, label: string): Promise<string> {
  const { verifier, challenge } = pkcePair()
  const code = await codeFor(h, token, { codeChallenge: challenge, scopes: ['saved-items:read'], label })
  return (await exchange(h, { client: 'chrome-extension', code, codeVerifier: verifier })).body.apiKey
}

describe('"issued by" on connect-issued keys', () => {
  test("names the issuing key's label or the agent's client name; personal keys name none", async () => {
    const h = await createHarness({ env })
    const { id, web } = await person(h, 'issued@example.com')
    const key = await (async () => {
      await web.get('/settings')
      const page = await web.post('/settings/api-keys', {
        label: 'Home script',
        scope: ['saved-items:read', 'account:read'],
      })
      return /id="new-api-key" class="secret">([^<]+)</.exec(page.text)![1]!
    })()
    await mint(h, key, 'From the script')
    const browser = await browserless(h, id)
    const client = await registerClient(h, { client_name: 'Claude Desktop' })
    const tokens = await tokensFor(h, { clientId: client.client_id, browser, scope: 'saved-items:read' })
    await mint(h, tokens.access_token, 'From the agent')
    const text = textOf((await web.get('/settings')).text)
    expect(text).toMatch(/From the script .*issued by Home script/)
    expect(text).toMatch(/From the agent .*issued by Claude Desktop/)
    expect(text.match(/issued by/g)).toHaveLength(2)
  })
})

describe('"Delete account"', () => {
  test('a wrong password deletes nothing; the right one removes every row of the person, ends the session, frees the email', async () => {
    const h = await createHarness({ env })
    const { id, web } = await person(h, 'leaving@example.com')
    const other = await person(h, 'staying@example.com')
    await web.get('/')
    await web.post('/queue/capture', { url: 'https://example.com/mine' })
    await other.web.get('/')
    await other.web.post('/queue/capture', { url: 'https://example.com/theirs' })
    const tables = ['users', 'saved_items', 'web_sessions', 'enrichment_jobs']
    const before = Object.fromEntries(
      await Promise.all(tables.map(async (t) => [t, await countRows(h.db, t)] as const)),
    )

    await web.get('/settings')
    const refused = await web.post('/settings/delete-account', { password: 'wrong password' })
    expect(refused.status).toBe(403)
    expect(textOf(refused.text)).toContain('That is not your password. Nothing was deleted.')
    expect(
      Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await countRows(h.db, t)] as const))),
    ).toEqual(before)

    const done = await web.post('/settings/delete-account', { password: 'right password' })
    expect(done.status).toBe(200)
    expect(textOf(done.text)).toContain('Account deleted')
    expect(done.setCookies.some((c) => /^rl_session=; .*Max-Age=0/.test(c))).toBe(true)
    for (const table of ['saved_items', 'web_sessions', 'api_keys', 'folders']) {
      const mine = await h.db.$client.execute({
        sql: `SELECT count(*) AS n FROM ${table} WHERE user_id = ?`,
        args: [id],
      })
      expect({ table, n: Number(mine.rows[0]!.n) }).toEqual({ table, n: 0 })
    }
    expect(await countRows(h.db, 'enrichment_jobs')).toBe(1)
    expect((await other.web.get('/settings')).status).toBe(200)
    expect((await web.get('/settings')).status).toBe(303)
    expect((await new WebClient(h).submitSignUp('leaving@example.com', 'another password')).status).toBe(303)
    expect(await countRows(h.db, 'users')).toBe(2)
  })

  test('without the CSRF field nothing happens', async () => {
    const h = await createHarness({ env })
    const { web } = await person(h, 'csrf-delete@example.com')
    await web.get('/settings')
    expect((await web.post('/settings/delete-account', { password: 'right password' }, { csrf: null })).status).toBe(
      403,
    )
    expect(await countRows(h.db, 'users')).toBe(1)
  })
})

describe("form-action in the pages' Content-Security-Policy", () => {
  test('every page limits forms to this origin', async () => {
    const h = await createHarness({ env })
    for (const path of ['/', '/sign-in', '/sign-up', '/no-such-page']) {
      const reply = await send(h, 'GET', path, { headers: { accept: 'text/html' } })
      expect(reply.headers.get('content-security-policy')).toContain("form-action 'self';")
    }
  })

  test("the consent page also allows the client's redirect target, whose redirect follows the form", async () => {
    const h = await createHarness({ env })
    const browser = await browserless(h)
    const client = await registerClient(h, {
      redirect_uris: ['http://127.0.0.1/cb', 'https://agent.example/cb', 'com.example.agent:/cb'],
    })
    const { challenge } = pkcePair()
    for (const [redirect, source] of [
      ['http://127.0.0.1:49152/cb', 'http://127.0.0.1:49152'],
      ['https://agent.example/cb', 'https://agent.example'],
      ['com.example.agent:/cb', 'com.example.agent:'],
    ]) {
      const page = await send(
        h,
        'GET',
        authorizePath({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: redirect!,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        }),
        { headers: { cookie: browser.cookie } },
      )
      expect(page.status).toBe(200)
      expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${source};`)
    }
  })
})
