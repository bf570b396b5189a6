import { calculatePkceS256Challenge } from '../../core/oauth/pkce.ts'
import { generateSecret } from '../../core/auth/secrets.ts'
import { createSession } from '../../adapters/app/web-sessions.ts'
import { BASE, random, type Harness, type Reply } from '../helpers/harness.ts'

export const ISSUER = `${BASE}/api/auth`
export const REDIRECT_URI = 'http://127.0.0.1/cb'

export interface Browserless {
  userId: string
  /** Cookie header with the session and the CSRF cookie. */
  cookie: string
  csrf: string
}

/** A signed-in browser without a browser: a session row and a CSRF cookie. */
export async function signedIn(h: Harness, userId?: string): Promise<Browserless> {
  const id = userId ?? (await h.user()).id
  const session = await createSession({ db: h.db, clock: h.clock, random }, id)
  const csrf = generateSecret(random)
  return { userId: id, cookie: `rl_session=${session}; rl_csrf=${csrf}`, csrf }
}

export async function send(
  h: Harness,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit; ip?: string } = {},
): Promise<Reply> {
  const url = path.startsWith('http') ? path : BASE + path
  const response = await h.server.fetch(
    new Request(url, { method, headers: init.headers, body: init.body, redirect: 'manual' }),
    { clientIp: init.ip ?? '127.0.0.1' },
  )
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body, text }
}

export function form(values: Record<string, string>): { headers: Record<string, string>; body: string } {
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values).toString(),
  }
}

export async function registerClient(
  h: Harness,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; [key: string]: unknown }> {
  const reply = await send(h, 'POST', '/api/auth/oauth2/register', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Agent',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  })
  if (reply.status !== 201) throw new Error(`registration failed: ${reply.status} ${reply.text}`)
  return reply.body as { client_id: string }
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = generateSecret(random)
  return { verifier, challenge: calculatePkceS256Challenge(verifier) }
}

export function authorizePath(params: Record<string, string | null>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== null) search.append(name, value)
  return `/api/auth/oauth2/authorize?${search}`
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
  if (!match) throw new Error(`no hidden field ${name} in page`)
  return match[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
}

export interface FlowOptions {
  clientId: string
  browser: Browserless
  scope?: string | null
  resource?: string | null
  redirectUri?: string
  state?: string
}

/** Authorize → consent page → "Allow": the code and the verifier that redeems it. */
export async function obtainCode(
  h: Harness,
  options: FlowOptions,
): Promise<{ code: string; verifier: string; location: URL }> {
  const { verifier, challenge } = pkcePair()
  const redirectUri = options.redirectUri ?? REDIRECT_URI
  const page = await send(
    h,
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: options.clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: options.state ?? 'state-1',
      scope: options.scope === undefined ? 'saved-items:read offline_access' : options.scope,
      resource: options.resource ?? null,
    }),
    { headers: { cookie: options.browser.cookie } },
  )
  if (page.status !== 200)
    throw new Error(`authorize answered ${page.status}: ${page.headers.get('location') ?? page.text}`)
  const decided = await decide(h, options.browser, page.text, 'allow')
  const location = new URL(decided.headers.get('location')!)
  return { code: location.searchParams.get('code')!, verifier, location }
}

export function decide(
  h: Harness,
  browser: Browserless,
  consentHtml: string,
  decision: string,
  csrf = browser.csrf,
): Promise<Reply> {
  return send(h, 'POST', '/api/auth/oauth2/consent', {
    headers: { cookie: browser.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, ticket: hiddenField(consentHtml, 'ticket'), decision }).toString(),
  })
}

export function redeem(h: Harness, values: Record<string, string>): Promise<Reply> {
  return send(h, 'POST', '/api/auth/oauth2/token', form(values))
}

export async function tokensFor(
  h: Harness,
  options: FlowOptions,
): Promise<{ access_token: string; refresh_token?: string; scope: string }> {
  const { code, verifier } = await obtainCode(h, options)
  const reply = await redeem(h, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    client_id: options.clientId,
    code_verifier: verifier,
  })
  if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${reply.text}`)
  return reply.body as { access_token: string; refresh_token?: string; scope: string }
}
