import { and, eq, gt, ne, sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { users, webSessions } from './schema.ts'

// The web sessions' SQL (docs/security.md#web-sessions); the rules (hashing, lifetimes, when use is
// recorded) are adapters/app/web-sessions.ts's.

export async function insertWebSession(db: Database, row: typeof webSessions.$inferInsert): Promise<void> {
  await db.insert(webSessions).values(row)
}

/**
 * The session with this token hash and its person, if it is not past `expiresAfter` and was last used
 * (or created) after `usedAfter`; with when it was last used.
 */
export async function findWebSession(
  db: Database,
  tokenHash: string,
  bounds: { expiresAfter: string; usedAfter: string },
): Promise<{ userId: string; email: string; lastSeenAt: string } | null> {
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
        gt(webSessions.expiresAt, bounds.expiresAfter),
        gt(sql`coalesce(${webSessions.lastSeenAt}, ${webSessions.createdAt})`, bounds.usedAfter),
      ),
    )
  return row ?? null
}

export async function touchWebSession(db: Database, tokenHash: string, at: string): Promise<void> {
  await db.update(webSessions).set({ lastSeenAt: at }).where(eq(webSessions.tokenHash, tokenHash))
}

export async function deleteWebSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.tokenHash, tokenHash))
}

/** Deletes every session of a person, but the one hashed `except` when given; returns how many. */
export async function deleteWebSessionsOf(db: Database, userId: string, except: string | null): Promise<number> {
  const rows = await db
    .delete(webSessions)
    .where(
      except === null
        ? eq(webSessions.userId, userId)
        : and(eq(webSessions.userId, userId), ne(webSessions.tokenHash, except)),
    )
    .returning({ tokenHash: webSessions.tokenHash })
  return rows.length
}
