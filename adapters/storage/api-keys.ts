import { and, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { preparedPer } from './prepared.ts'
import type { Database } from './open-database.ts'
import { apiKeys } from './schema.ts'

export type ApiKeyRow = typeof apiKeys.$inferSelect

export async function insertApiKey(db: Database, row: typeof apiKeys.$inferInsert): Promise<void> {
  await db.insert(apiKeys).values(row)
}

/** Looks a key up by its SHA-256 hash; revoked keys are never returned. */
const activeKeyByHash = preparedPer((db) =>
  db.select().from(apiKeys).where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(apiKeys.revokedAt))).prepare())

export async function findActiveApiKey(db: Database, keyHash: string): Promise<ApiKeyRow | null> {
  const [row] = await activeKeyByHash(db).execute({ keyHash })
  return row ?? null
}

/**
 * Records use at most once a minute per key, so a busy key does not turn every read into a write. The row
 * just read decides whether to write at all (an UPDATE takes the write lock even when it changes nothing);
 * the WHERE keeps two processes from both writing.
 */
export async function touchApiKey(db: Database, key: ApiKeyRow, now: Date): Promise<void> {
  if (key.lastUsedAt && now.getTime() - Date.parse(key.lastUsedAt) < 60_000) return
  const threshold = new Date(now.getTime() - 60_000).toISOString()
  await db.update(apiKeys).set({ lastUsedAt: now.toISOString() })
    .where(and(eq(apiKeys.id, key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, threshold))))
}

export async function listApiKeys(db: Database, userId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
}

export async function revokeApiKey(db: Database, userId: string, id: string, now: string): Promise<boolean> {
  const rows = await db.update(apiKeys).set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt))).returning({ id: apiKeys.id })
  return rows.length > 0
}
