import { expect } from 'bun:test'
import { hashSecret } from '../../core/auth/secrets.ts'
import { calculatePkceS256Challenge } from '../../core/oauth/pkce.ts'
import { countRows, type Harness, type Reply } from '../helpers/harness.ts'

/** RFC 7636 Appendix B: the verifier and its S256 challenge. */
export const RFC7636_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
export const RFC7636_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

export const CHROME_REDIRECT = 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/callback'
export const RAYCAST_REDIRECT = 'https://raycast.com/redirect?packageName=Extension'
/** What Firefox's browser.identity.getRedirectURL() gives the same extension: 40 lowercase hex digits. */
export const FIREFOX_REDIRECT = 'https://0123456789abcdef0123456789abcdef01234567.extensions.allizom.org/callback'

export const REDIRECTS = { 'chrome-extension': CHROME_REDIRECT, raycast: RAYCAST_REDIRECT } as const

/** A fresh PKCE pair, as a client makes one. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
  return { verifier, challenge: calculatePkceS256Challenge(verifier) }
}

export function authorizeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client: 'chrome-extension',
    redirectUri: CHROME_REDIRECT,
    codeChallenge: RFC7636_CHALLENGE,
    codeChallengeMethod: 'S256',
    scopes: ['saved-items:capture', 'saved-items:read', 'folders:read'],
    label: 'Chrome on my laptop',
    deviceHint: 'MacBook Air, Chrome 142',
    ...overrides,
  }
}

export function authorize(
  h: Harness,
  token: string | undefined,
  overrides: Record<string, unknown> = {},
  ip?: string,
): Promise<Reply> {
  return h.call('POST', '/connect/authorize', { token, body: authorizeBody(overrides), ...(ip ? { ip } : {}) })
}

export function exchange(h: Harness, body: Record<string, unknown>, ip?: string): Promise<Reply> {
  return h.call('POST', '/connect/exchange', { body, ...(ip ? { ip } : {}) })
}

/** Authorize then return the code (asserting the 200). */
export async function codeFor(h: Harness, token: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const reply = await authorize(h, token, overrides)
  expect(reply.status).toBe(200)
  return reply.body.code
}

export function expectConnectError(reply: Reply, code: string): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 400,
    body: { _tag: 'ConnectError', message: expect.any(String), code },
  })
}

export function expectValidationError(reply: Reply, message: RegExp | string = /./): void {
  expect(reply.status).toBe(400)
  expect(reply.body).toEqual({ _tag: 'ValidationError', message: expect.any(String) })
  if (typeof message === 'string') expect(reply.body.message).toBe(message)
  else expect(reply.body.message).toMatch(message)
}

/** connect_codes and api_keys rows: what "nothing was written" is measured by. */
export async function connectRowCounts(h: Harness): Promise<{ codes: number; keys: number }> {
  return { codes: await countRows(h.db, 'connect_codes'), keys: await countRows(h.db, 'api_keys') }
}

export async function codeRow(h: Harness, code: string): Promise<Record<string, unknown> | null> {
  const result = await h.db.$client.execute({
    sql: 'SELECT * FROM connect_codes WHERE code_hash = ?',
    args: [hashSecret(code)],
  })
  return (result.rows[0] as Record<string, unknown> | undefined) ?? null
}
