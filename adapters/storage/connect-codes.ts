import { and, eq, gte, isNull, lt } from 'drizzle-orm'
import type { ConnectCodeStore } from '../../core/connect/connect-exchange.ts'
import type { Database } from './open-database.ts'
import { connectCodes } from './schema.ts'

export type ConnectCodeRow = typeof connectCodes.$inferSelect

/** Stores a new connect code, by its SHA-256 hash only: the code itself is only ever in the authorize response. */
export async function insertConnectCode(db: Database, row: typeof connectCodes.$inferInsert): Promise<void> {
  await db.insert(connectCodes).values(row)
}

/**
 * Marks the code used and returns it, or null when no unused, unexpired code has that hash. One UPDATE …
 * WHERE used_at IS NULL … RETURNING, so of two concurrent exchanges (on any number of processes sharing
 * the database) exactly one gets the row. A code is live until `expires_at` inclusive; RFC 3339 strings
 * of fixed width compare in time order.
 */
export async function spendConnectCode(db: Database, codeHash: string, now: string): Promise<ConnectCodeRow | null> {
  const [row] = await db
    .update(connectCodes)
    .set({ usedAt: now })
    .where(and(eq(connectCodes.codeHash, codeHash), isNull(connectCodes.usedAt), gte(connectCodes.expiresAt, now)))
    .returning()
  return row ?? null
}

/** Drops codes that expired before `before`, used or not: they can never be exchanged again. */
export async function pruneConnectCodes(db: Database, before: string): Promise<void> {
  await db.delete(connectCodes).where(lt(connectCodes.expiresAt, before))
}

/** The connect exchange's storage port (core/connect/connect-exchange.ts) on a database, whatever its driver. */
export function connectCodeStore(db: Database): ConnectCodeStore<ConnectCodeRow> {
  return { spendConnectCode: (codeHash, at) => spendConnectCode(db, codeHash, at) }
}
