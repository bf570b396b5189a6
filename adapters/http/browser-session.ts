import type { HTTPHeaders } from 'elysia'
import { generateSecret } from '../../core/auth/secrets.ts'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import type { Clock, RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { SESSION_DAYS, validateSessionToken, type WebSession } from '../app/web-sessions.ts'

export type { WebSession }

/** `__Host-` pins the cookie to this exact origin (Secure, Path=/, no Domain): only possible on https. */
export const sessionCookieName = (secure: boolean): string => (secure ? '__Host-rl_session' : 'rl_session')
export const csrfCookieName = (secure: boolean): string => (secure ? '__Host-rl_csrf' : 'rl_csrf')

/**
 * A browser's session and CSRF cookies (docs/security.md#web-sessions), for one app: whether its cookies are
 * `Secure` (and `__Host-`) is decided once, from APP_URL. The one place cookies are read and written: Elysia's
 * cookie jar decodes values twice and writes the attributes in another order, so it is not used.
 */
export interface BrowserSession {
  /** APP_URL is https: the cookies are Secure and `__Host-` prefixed. */
  readonly secure: boolean
  /** The signed-in person of a request: its session cookie's token, if the session is in force (app/web-sessions.ts). */
  sessionOf(request: Request): Promise<WebSession | null>
  /**
   * CSRF by double submit: a random HttpOnly cookie, echoed in a hidden field of every form (or the
   * `x-csrf-token` header). A cross-site page can neither read the cookie nor set it for our origin.
   * Returns the token to embed and, when the cookie was missing, the Set-Cookie header to send.
   */
  csrfOf(request: Request): { token: string; setCookie: string | null }
  /** A fresh CSRF token and the cookie that carries it (sign-in and sign-out rotate it). */
  newCsrf(): { token: string; setCookie: string }
  /** The submitted token equals the CSRF cookie (constant time). */
  isValidCsrf(request: Request, submitted: string | null | undefined): boolean
  /** The Set-Cookie header of a session token; `''` and 0 end it. */
  sessionCookie(token: string, maxAgeSeconds: number): string
}

export function browserSession(deps: {
  config: { appUrl: string }
  db: Database
  clock: Clock
  random: RandomSource
}): BrowserSession {
  const secure = deps.config.appUrl.startsWith('https:')
  const sessionName = sessionCookieName(secure)
  const csrfName = csrfCookieName(secure)

  const newCsrf = () => {
    const token = generateSecret(deps.random)
    return { token, setCookie: cookieHeader(csrfName, token, secure, SESSION_DAYS * 86_400) }
  }

  return {
    secure,
    async sessionOf(request) {
      const token = readCookie(request, sessionName)
      return token ? validateSessionToken(deps, token) : null
    },
    csrfOf(request) {
      const existing = readCookie(request, csrfName)
      if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing, setCookie: null }
      return newCsrf()
    },
    newCsrf,
    isValidCsrf(request, submitted) {
      const cookie = readCookie(request, csrfName)
      if (!cookie || !submitted || cookie.length !== submitted.length) return false
      const encoder = new TextEncoder()
      return constantTimeEqual(encoder.encode(cookie), encoder.encode(submitted))
    },
    sessionCookie: (token, maxAgeSeconds) => cookieHeader(sessionName, token, secure, maxAgeSeconds),
  }
}

function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookieValue(part.slice(eq + 1).trim())
  }
  return null
}

/** A value that is not valid percent-encoding (`%zz`) is no cookie of ours: treated as absent, never an error. */
function decodeCookieValue(value: string): string | null {
  try {
    return decodeURIComponent(value)
  } catch {
    return null
  }
}

function cookieHeader(name: string, value: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'SameSite=Lax',
    'HttpOnly',
    ...(secure ? ['Secure'] : []),
  ].join('; ')
}

/**
 * What a page answer is made for: the request, Elysia's `set` (where cookies go), who is signed in and the
 * CSRF token for its forms; the guard's `session`, `signedIn` and `form` options resolve them (guard.ts).
 */
export interface PageVisitor {
  request: Request
  set: { headers: HTTPHeaders }
  session: WebSession | null
  csrf: string
}

// A new CSRF cookie waits here until the page's answer is written (page, redirect, message, the script's
// answers), so an answer that is none of these (an export download) carries no cookie, as before.
const pendingCookie = new WeakMap<Request, string>()

/** Holds the CSRF cookie of a visitor who had none, for the answer to carry. */
export function holdCookie(request: Request, setCookie: string): void {
  pendingCookie.set(request, setCookie)
}

/** Writes the held cookie, if any, into the answer's headers. */
export function sendHeldCookie(visitor: Pick<PageVisitor, 'request' | 'set'>): void {
  const held = pendingCookie.get(visitor.request)
  if (held === undefined) return
  pendingCookie.delete(visitor.request)
  appendCookie(visitor.set.headers, held)
}

/** Sets a cookie on the answer, after the held one (a rotated CSRF token must come last to win). */
export function setCookie(visitor: Pick<PageVisitor, 'request' | 'set'>, header: string): void {
  sendHeldCookie(visitor)
  appendCookie(visitor.set.headers, header)
}

function appendCookie(headers: HTTPHeaders, header: string): void {
  const current = headers['set-cookie']
  headers['set-cookie'] = current === undefined ? [header] : [...(Array.isArray(current) ? current : [current]), header]
}
