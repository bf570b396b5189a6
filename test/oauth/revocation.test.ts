import { beforeEach, describe, expect, test } from 'bun:test'
import { createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import { form, registerClient, send, signedIn, tokensFor, type Browserless } from './oauth-helpers.ts'

let h: Harness
let clientId: string
let browser: Browserless

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  clientId = (await registerClient(h)).client_id
  browser = await signedIn(h)
})

const revoke = (values: Record<string, string>) => send(h, 'POST', '/api/auth/oauth2/revoke', form(values))
const api = (accessToken: string) =>
  send(h, 'GET', '/v1/saved-items', { headers: { authorization: `Bearer ${accessToken}` } })

function expectRevocationOk(reply: Reply): void {
  expect(reply.status).toBe(200)
  expect(reply.text).toBe('')
  expect(reply.headers.get('cache-control')).toBe('no-store')
  expect(reply.headers.get('access-control-allow-origin')).toBe('*')
}

async function activeGrants(): Promise<number> {
  const rows = await h.db.$client.execute('SELECT count(*) AS n FROM oauth_grants WHERE revoked_at IS NULL')
  return Number(rows.rows[0]!.n)
}

describe('POST /api/auth/oauth2/revoke', () => {
  test('revoking the refresh token ends the whole grant: the access token is refused at once', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    expect((await api(tokens.access_token)).status).toBe(200)
    expectRevocationOk(
      await revoke({ token: tokens.refresh_token!, client_id: clientId, token_type_hint: 'refresh_token' }),
    )
    expect(await activeGrants()).toBe(0)
    expect((await api(tokens.access_token)).status).toBe(401)
  })

  test('revoking the access token ends the whole grant: the refresh token stops working', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    expectRevocationOk(await revoke({ token: tokens.access_token, client_id: clientId }))
    expect((await api(tokens.access_token)).status).toBe(401)
    const refreshed = await send(
      h,
      'POST',
      '/api/auth/oauth2/token',
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId }),
    )
    expect(refreshed.body).toMatchObject({ error: 'invalid_grant' })
  })

  test("an unknown token, or another client's, answers 200 and changes nothing", async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    const otherClient = (await registerClient(h)).client_id
    for (const values of [
      { token: 'rlr_' + 'Q'.repeat(43), client_id: clientId },
      { token: 'not-a-token', client_id: clientId },
      { token: 'eyJhbGciOiJub25lIn0.eyJncmFudF9pZCI6IngifQ.', client_id: clientId },
      { token: tokens.refresh_token!, client_id: otherClient },
      { token: tokens.access_token, client_id: otherClient },
    ])
      expectRevocationOk(await revoke(values))
    expect(await activeGrants()).toBe(1)
    expect((await api(tokens.access_token)).status).toBe(200)
  })

  test('an expired access token can still be revoked, ending its grant', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    h.clock.advance(3_600_000)
    expectRevocationOk(await revoke({ token: tokens.access_token, client_id: clientId }))
    expect(await activeGrants()).toBe(0)
  })

  test('needs token and client_id in a form body', async () => {
    const tokens = await tokensFor(h, { clientId, browser })
    expect((await revoke({ token: tokens.access_token })).body).toEqual({
      error: 'invalid_request',
      error_description: 'client_id is required',
    })
    expect((await revoke({ client_id: clientId })).body).toEqual({
      error: 'invalid_request',
      error_description: 'token is required',
    })
    const json = await send(h, 'POST', '/api/auth/oauth2/revoke', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokens.access_token, client_id: clientId }),
    })
    expect(json.status).toBe(400)
    expect(json.body).toMatchObject({ error: 'invalid_request' })
    const unknownClient = await revoke({ token: tokens.access_token, client_id: 'nobody' })
    expect(unknownClient.status).toBe(401)
    expect(unknownClient.body).toMatchObject({ error: 'invalid_client' })
    expect(await activeGrants()).toBe(1)
  })
})
