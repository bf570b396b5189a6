import { generateSecret } from '../../core/auth/secrets.ts'
import { SESSION_DAYS, SESSION_IDLE_DAYS } from '../../core/auth/lifetimes.ts'
import type { Clock, RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import {
  deleteWebSession,
  deleteWebSessionsOf,
  findWebSession,
  insertWebSession,
  touchWebSession,
} from '../storage/web-sessions.ts'
import { hashSecret } from './secret-hash.ts'

// Web sessions (docs/security.md#web-sessions), in Lucia's shape: a random token for the cookie, of which
// the database keeps only the SHA-256; validate, create, invalidate one, invalidate a person's.

export { SESSION_DAYS, SESSION_IDLE_DAYS }
const DAY_MS = 86_400_000
/** Use is recorded at most once an hour, so most reads stay reads. */
const TOUCH_EVERY_MS = 60 * 60 * 1000

/** A session in force: whose it is, their email (the header shows it), and its token's hash (its id). */
export interface WebSession {
  userId: string
  email: string
  tokenHash: string
}

/** Starts a session for a person; returns the token for the cookie (the database keeps only its hash). */
export async function createSession(
  deps: { db: Database; clock: Clock; random: RandomSource },
  userId: string,
): Promise<string> {
  const token = generateSecret(deps.random)
  const now = deps.clock.now()
  await insertWebSession(deps.db, {
    tokenHash: hashSecret(token),
    userId,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + SESSION_DAYS * DAY_MS).toISOString(),
  })
  return token
}

/**
 * The session of a token, if it is in force: not past its {@link SESSION_DAYS} days, and used within the
 * last {@link SESSION_IDLE_DAYS} days (sliding: a use moves that window on); else null.
 */
export async function validateSessionToken(
  deps: { db: Database; clock: Clock },
  token: string,
): Promise<WebSession | null> {
  const now = deps.clock.now()
  const tokenHash = hashSecret(token)
  const row = await findWebSession(deps.db, tokenHash, {
    expiresAfter: now.toISOString(),
    usedAfter: new Date(now.getTime() - SESSION_IDLE_DAYS * DAY_MS).toISOString(),
  })
  if (!row) return null
  if (now.getTime() - Date.parse(row.lastSeenAt) >= TOUCH_EVERY_MS)
    await touchWebSession(deps.db, tokenHash, now.toISOString())
  return { userId: row.userId, email: row.email, tokenHash }
}

/** Ends one session (sign-out, a new sign-in over an old session, a deleted account's). */
export async function invalidateSession(deps: { db: Database }, tokenHash: string): Promise<void> {
  await deleteWebSession(deps.db, tokenHash)
}

/**
 * Ends every session of a person, but the one hashed `except` ("Sign out other sessions" keeps the one
 * asking). Returns how many ended.
 */
export async function invalidateUserSessions(
  deps: { db: Database },
  userId: string,
  options: { except: string | null },
): Promise<number> {
  return deleteWebSessionsOf(deps.db, userId, options.except)
}
