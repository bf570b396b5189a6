import { eq, sql } from 'drizzle-orm'
import { canonicalEmail } from '../../core/auth/email.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import { preparedPer } from './prepared.ts'
import type { Database } from './open-database.ts'
import { users } from './schema.ts'
import { deleteWebSessionsOf } from './web-sessions.ts'

export type UserRow = typeof users.$inferSelect

export async function insertUser(db: Database, row: typeof users.$inferInsert): Promise<'created' | 'email-taken'> {
  try {
    await db.insert(users).values({ ...row, email: canonicalEmail(row.email) })
    return 'created'
  } catch (error) {
    if (/UNIQUE constraint failed/.test(String((error as { cause?: unknown })?.cause ?? error))) return 'email-taken'
    throw error
  }
}

export async function findUserByEmail(db: Database, email: string): Promise<UserRow | null> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(users.email, canonicalEmail(email)))
  return row ?? null
}

export async function findUserById(db: Database, id: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id))
  return row ?? null
}

/** Records that someone tried to sign up with a taken email; returns the owner's id (null if none). */
export async function markSignupAttempt(db: Database, email: string, now: string): Promise<string | null> {
  const [row] = await db
    .update(users)
    .set({ signupAttemptedAt: now })
    .where(eq(users.email, canonicalEmail(email)))
    .returning({ id: users.id })
  return row?.id ?? null
}

/**
 * Every person with how many items they have and the bytes of their archived images, oldest account first
 * (the admin CLI's `user list`).
 */
export async function listUsersWithItemCounts(
  db: Database,
): Promise<{ id: string; email: string; createdAt: string; items: number; imageBytes: number }[]> {
  return db
    .select({
      id: users.id,
      email: users.email,
      createdAt: users.createdAt,
      // Written out: drizzle leaves columns unqualified here, and `user_id = id` would compare inside saved_items.
      items: sql<number>`(SELECT count(*) FROM saved_items AS s WHERE s.user_id = users.id)`,
      // A sum over the (user_id, size) index: no image's bytes are read.
      imageBytes: sql<number>`(SELECT coalesce(sum(i.size), 0) FROM item_images AS i WHERE i.user_id = users.id)`,
    })
    .from(users)
    .orderBy(users.createdAt, users.email)
}

/** Sets the person's password hash, then ends every web session of theirs; returns how many ended. */
export async function setPasswordHashEndingSessions(
  db: Database,
  userId: string,
  passwordHash: string,
): Promise<number> {
  await db.update(users).set({ passwordHash }).where(eq(users.id, userId))
  return deleteWebSessionsOf(db, userId, null)
}

const itemsVersionStatement = preparedPer((db) =>
  db
    .select({ version: users.itemsVersion })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare(),
)

/** The person's item version: triggers bump it on every change to their items or folders (migration 0004). */
export function itemsVersionOf(db: Database, userId: string): MaybePromise<number> {
  return andThen(itemsVersionStatement(db).values({ userId }) as MaybePromise<ArrayLike<unknown>[]>, ([row]) =>
    row ? Number(row[0]) : -1,
  )
}

const listVersionsStatement = preparedPer((db) =>
  db
    .select({ items: users.itemsVersion, highlights: users.highlightsVersion })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare(),
)

/**
 * What the person's list of highlights is made of, as one version: triggers bump `highlights_version` on
 * every change to their highlights (migration 0016) and `items_version` on every change to their items (the
 * title and URL each highlight shows), by any process.
 */
export async function highlightListVersionOf(db: Database, userId: string): Promise<string> {
  const [row] = (await listVersionsStatement(db).values({ userId })) as ArrayLike<unknown>[]
  return row ? `${row[0]} ${row[1]}` : ''
}
