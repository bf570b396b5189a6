import { and, eq, gt, ne, sql } from 'drizzle-orm'
import { generateSecret } from '../../../core/auth/secrets.ts'
import { hashSecret } from '../../app/secret-hash.ts'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import type { Clock, RandomSource } from '../../../core/types.ts'
import type { Database } from '../../storage/open-database.ts'
import { SESSION_DAYS, SESSION_IDLE_DAYS } from '../../../core/auth/lifetimes.ts'
import { users, webSessions } from '../../storage/schema.ts'

export { SESSION_DAYS, SESSION_IDLE_DAYS }
const TOUCH_EVERY_MS = 60 * 60 * 1000

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

export interface WebSession {
  userId: string
  email: string
  tokenHash: string
}

/** Starts a session; returns the token for the cookie (the database keeps only its hash). */
export async function createWebSession(
  db: Database,
  deps: { clock: Clock; random: RandomSource },
  userId: string,
): Promise<string> {
  const token = generateSecret(deps.random)
  const now = deps.clock.now()
  await db.insert(webSessions).values({
    tokenHash: hashSecret(token),
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_DAYS * 86_400_000).toISOString(),
  })
  return token
}

/**
 * The signed-in person of a request, if its session is in force: not past its 30 days, and used within the
 * last {@link SESSION_IDLE_DAYS} days. Use is recorded at most once an hour, so most reads stay reads.
 * @see docs/security.md#web-sessions
 */
export async function readWebSession(
  db: Database,
  request: Request,
  now: Date,
  secure: boolean,
): Promise<WebSession | null> {
  const token = readCookie(request, sessionCookieName(secure))
  if (!token) return null
  const tokenHash = hashSecret(token)
  const idleSince = new Date(now.getTime() - SESSION_IDLE_DAYS * 86_400_000).toISOString()
  const [row] = await db
    .select({
      userId: webSessions.userId,
      email: users.email,
      lastSeenAt: sql<string>`coalesce(${webSessions.lastSeenAt}, ${webSessions.createdAt})`,
    })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .where(
      and(
        eq(webSessions.tokenHash, tokenHash),
        gt(webSessions.expiresAt, now.toISOString()),
        gt(sql`coalesce(${webSessions.lastSeenAt}, ${webSessions.createdAt})`, idleSince),
      ),
    )
  if (!row) return null
  if (now.getTime() - Date.parse(row.lastSeenAt) >= TOUCH_EVERY_MS) {
    await db.update(webSessions).set({ lastSeenAt: now.toISOString() }).where(eq(webSessions.tokenHash, tokenHash))
  }
  return { userId: row.userId, email: row.email, tokenHash }
}

/** Ends every session of a person but `keep` (the one asking): "Sign out other sessions". Returns how many. */
export async function deleteOtherWebSessions(db: Database, userId: string, keep: string): Promise<number> {
  const rows = await db
    .delete(webSessions)
    .where(and(eq(webSessions.userId, userId), ne(webSessions.tokenHash, keep)))
    .returning({ tokenHash: webSessions.tokenHash })
  return rows.length
}

export async function deleteWebSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.tokenHash, tokenHash))
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
