import type { Harness } from '../helpers/harness.ts'

export interface Page {
  status: number
  headers: Headers
  text: string
  location: string | null
  setCookies: string[]
}

/**
 * A cookie-keeping client for the web pages, in process (no browser): it stores what Set-Cookie sends,
 * and reads the CSRF field of the last page so tests can post forms as a browser would.
 */
export class WebClient {
  readonly cookies = new Map<string, string>()
  last: Page | null = null
  readonly harness: Harness
  readonly origin: string
  readonly ip: string

  constructor(harness: Harness, options: { ip?: string } = {}) {
    this.harness = harness
    this.origin = harness.config.appUrl
    this.ip = options.ip ?? '127.0.0.1'
  }

  /** The CSRF token of the last page's forms. */
  get csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.last?.text ?? '')
    if (!match) throw new Error('the last page has no CSRF field')
    return match[1]!
  }

  async request(
    method: string,
    path: string,
    body?: URLSearchParams,
    headers: Record<string, string> = {},
  ): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const all: Record<string, string> = { ...headers }
    if (cookie) all.cookie = cookie
    if (body) all['content-type'] ??= 'application/x-www-form-urlencoded'
    const response = await this.harness.server.fetch(new Request(this.origin + path, { method, headers: all, body }), {
      clientIp: this.ip,
    })
    const setCookies = response.headers.getSetCookie()
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, pair!.slice(eq + 1).trim())
    }
    const page = {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      location: response.headers.get('location'),
      setCookies,
    }
    if (page.text.includes('name="csrf"')) this.last = page
    return page
  }

  get(path: string): Promise<Page> {
    return this.request('GET', path)
  }

  /** Posts a form with the last page's CSRF token unless `csrf` says otherwise (null: no field at all). */
  post(
    path: string,
    fields: Record<string, string | string[]> = {},
    options: { csrf?: string | null } = {},
  ): Promise<Page> {
    const body = new URLSearchParams()
    const csrf = options.csrf === undefined ? this.csrf : options.csrf
    if (csrf !== null) body.append('csrf', csrf)
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v)
    return this.request('POST', path, body)
  }

  /** Posts the sign-up form (GET it, POST it) and returns that answer: sign-up never signs in by itself. */
  async submitSignUp(email: string, password = 'correct horse battery'): Promise<Page> {
    await this.get('/sign-up')
    return this.post('/sign-up', { email, password })
  }

  /** Creates an account through the pages and signs in with it, as a new person does; returns the sign-in answer. */
  async signUp(email: string, password = 'correct horse battery'): Promise<Page> {
    const created = await this.submitSignUp(email, password)
    if (created.status !== 303) return created
    return this.signIn(email, password)
  }

  async signIn(email: string, password: string, next?: string): Promise<Page> {
    await this.get('/sign-in')
    return this.post('/sign-in', { email, password, ...(next !== undefined ? { next } : {}) })
  }
}

/** The visible text of some HTML, tags removed and entities left as they are. */
export const textOf = (markup: string): string =>
  markup
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
