import { generateSecret } from '../../core/auth/secrets.ts'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import type { Clock, RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { SESSION_DAYS, validateSessionToken, type WebSession } from '../app/web-sessions.ts'

export type { WebSession }

/** `__Host-` pins the cookie to this exact origin (Secure, Path=/, no Domain): only possible on https. */
export const sessionCookieName = (secure: boolean): string => (secure ? '__Host-rl_session' : 'rl_session')
export const csrfCookieName = (secure: boolean): string => (secure ? '__Host-rl_csrf' : 'rl_csrf')

export function readCookie(request: Request, name: string): string | null {
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

export function cookieHeader(
  name: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds: number; httpOnly?: boolean },
): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/',
    `Max-Age=${options.maxAgeSeconds}`,
    'SameSite=Lax',
    ...(options.httpOnly === false ? [] : ['HttpOnly']),
    ...(options.secure ? ['Secure'] : []),
  ].join('; ')
}

/**
 * The signed-in person of a request: its session cookie's token, if the session is in force
 * (adapters/app/web-sessions.ts).
 * @see docs/security.md#web-sessions
 */
export async function readWebSession(
  deps: { db: Database; clock: Clock },
  request: Request,
  secure: boolean,
): Promise<WebSession | null> {
  const token = readCookie(request, sessionCookieName(secure))
  return token ? validateSessionToken(deps, token) : null
}

/**
 * CSRF by double submit: a random HttpOnly cookie, echoed in a hidden field of every form (or the
 * `x-csrf-token` header). A cross-site page can neither read the cookie nor set it for our origin.
 * Returns the token to embed and, when the cookie was missing, the Set-Cookie header to send.
 */
export function csrfTokenFor(
  request: Request,
  deps: { random: RandomSource },
  secure: boolean,
): { token: string; setCookie: string | null } {
  const existing = readCookie(request, csrfCookieName(secure))
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing, setCookie: null }
  return newCsrfToken(deps, secure)
}

/** A fresh CSRF token and the cookie that carries it. */
export function newCsrfToken(deps: { random: RandomSource }, secure: boolean): { token: string; setCookie: string } {
  const token = generateSecret(deps.random)
  return {
    token,
    setCookie: cookieHeader(csrfCookieName(secure), token, { secure, maxAgeSeconds: SESSION_DAYS * 86_400 }),
  }
}

export function isValidCsrf(request: Request, submitted: string | null | undefined, secure: boolean): boolean {
  const cookie = readCookie(request, csrfCookieName(secure))
  if (!cookie || !submitted || cookie.length !== submitted.length) return false
  const encoder = new TextEncoder()
  return constantTimeEqual(encoder.encode(cookie), encoder.encode(submitted))
}
