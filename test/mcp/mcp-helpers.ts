import { afterAll, afterEach, beforeAll } from 'bun:test'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { hiddenField, type Browserless } from '../oauth/oauth-helpers.ts'

/**
 * An MCP client's OAuth state kept in memory, as the SDK's own examples do. The person is played by the
 * test: `redirectToAuthorization` only records the URL (there is no browser and no callback listener).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined
  stored: OAuthTokens | undefined
  verifier: string | undefined
  /** Every URL the SDK sent the person to, in order. */
  readonly authorizationUrls: URL[] = []
  /** The `state` of each authorization request, in order. */
  readonly states: string[] = []

  constructor(readonly callbackUrl: string) {}

  get redirectUrl(): string {
    return this.callbackUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP Client',
      redirect_uris: [this.callbackUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  state(): string {
    const value = crypto.randomUUID()
    this.states.push(value)
    return value
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information
  }

  tokens(): OAuthTokens | undefined {
    return this.stored
  }

  saveTokens(tokens: OAuthTokens): void {
    this.stored = tokens
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url)
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no code verifier saved')
    return this.verifier
  }

  invalidateCredentials(what: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (what === 'all' || what === 'client') this.client = undefined
    if (what === 'all' || what === 'tokens') this.stored = undefined
    if (what === 'all' || what === 'verifier') this.verifier = undefined
  }

  /** The last authorization URL the SDK produced. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1)
    if (!url) throw new Error('the SDK never sent the person to authorize')
    return url
  }
}

/** One HTTP exchange the SDK made: what it asked for and what came back. */
export interface Exchange {
  method: string
  url: string
  status: number
  wwwAuthenticate: string | null
}

/** A fetch for the SDK transport that records every exchange (the transport uses it for discovery and OAuth too). */
export function recordingFetch(log: Exchange[]): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init)
    log.push({
      method: init?.method ?? 'GET',
      url: String(input),
      status: response.status,
      wwwAuthenticate: response.headers.get('www-authenticate'),
    })
    return response
  }
}

/** The scopes listed on a consent page, in order. */
export function listedScopes(consentHtml: string): string[] {
  const list = /<ul aria-label="Requested permissions">([\s\S]*?)<\/ul>/.exec(consentHtml)
  if (!list) throw new Error('no permission list on the page')
  return [...list[1]!.matchAll(/<li><code>([^<]+)<\/code>/g)].map((match) => match[1]!)
}

export interface Consent {
  /** Status of the authorization URL (200 when the consent page is shown). */
  pageStatus: number
  scopes: string[]
  /** Status of the "Allow" POST (303 on success). */
  decisionStatus: number
  /** Where the person's browser is sent back to. */
  location: URL
}

/**
 * The person, without a browser: opens the authorization URL with a session cookie, reads the consent page
 * and clicks "Allow" (the page's form: csrf, ticket, decision).
 */
export async function allowOverHttp(
  base: string,
  person: Browserless,
  authorizationUrl: URL | string,
): Promise<Consent> {
  const page = await fetch(authorizationUrl, { headers: { cookie: person.cookie }, redirect: 'manual' })
  const html = await page.text()
  if (page.status !== 200)
    throw new Error(`authorization URL answered ${page.status}: ${page.headers.get('location') ?? html}`)
  const decision = await fetch(`${base}/api/auth/oauth2/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: person.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: person.csrf, ticket: hiddenField(html, 'ticket'), decision: 'allow' }),
  })
  await decision.body?.cancel()
  const location = decision.headers.get('location')
  if (!location) throw new Error(`consent answered ${decision.status} without a Location`)
  return {
    pageStatus: page.status,
    scopes: listedScopes(html),
    decisionStatus: decision.status,
    location: new URL(location),
  }
}

/**
 * The person signing in through the real pages: the authorization URL sends a signed-out browser to
 * /sign-in; its form (email, password, the CSRF field and cookie) starts a session and sends the browser
 * back to the authorization URL. Returns that browser's cookies, ready for {@link allowOverHttp}.
 */
export async function signInOverHttp(
  base: string,
  email: string,
  password: string,
  authorizationUrl: URL | string,
): Promise<Browserless & { next: string }> {
  const first = await fetch(authorizationUrl, { redirect: 'manual' })
  await first.body?.cancel()
  const signInUrl = first.headers.get('location')
  if (first.status !== 303 || !signInUrl?.startsWith(`${base}/sign-in?next=`))
    throw new Error(`authorize did not send a signed-out person to sign in: ${first.status} ${signInUrl}`)
  const page = await fetch(signInUrl, { redirect: 'manual' })
  const html = await page.text()
  const csrfCookie = /rl_csrf=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1]
  if (page.status !== 200 || !csrfCookie) throw new Error(`sign-in page answered ${page.status} without a CSRF cookie`)
  const next = hiddenField(html, 'next')
  const posted = await fetch(`${base}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `rl_csrf=${csrfCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: hiddenField(html, 'csrf'), next, email, password }),
  })
  await posted.body?.cancel()
  const session = /rl_session=([^;]+)/.exec(posted.headers.get('set-cookie') ?? '')?.[1]
  if (posted.status !== 303 || !session) throw new Error(`sign-in answered ${posted.status} without a session`)
  return {
    userId: '',
    cookie: `rl_session=${session}; rl_csrf=${csrfCookie}`,
    csrf: csrfCookie,
    next: new URL(posted.headers.get('location')!, base).href,
  }
}

/** The claims of a JWT, unverified (the server verifies; tests only read what it issued). */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1]
  if (!payload) throw new Error('not a JWT')
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
}

/** A REST call on the live server with a bearer credential: status and parsed JSON body. */
export async function rest(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers }
}

/** A raw MCP POST (one JSON-RPC message) with a bearer token, for asserting on status and headers. */
export function mcpPost(base: string, token: string | null, message: unknown): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  if (token !== null) headers.authorization = `Bearer ${token}`
  return fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(message) })
}

/** A loopback port nobody listens on right now (the OS picks it; freed before returning). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(null, { status: 404 }) })
  const port = server.port!
  server.stop(true)
  return port
}

/**
 * A live server for one test file, and MCP SDK clients connected to its `/mcp` with a bearer credential,
 * each closed after the test that opened it.
 */
export function mcpSuite() {
  let live: LiveServer
  const clients: Client[] = []
  beforeAll(async () => {
    live = await startLiveServer()
  })
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close()
  })
  afterAll(async () => {
    await live.stop()
  })
  return {
    get live(): LiveServer {
      return live
    },
    async connect(key: string, name: string): Promise<Client> {
      const client = new Client({ name, version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${live.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      )
      clients.push(client)
      return client
    },
  }
}
