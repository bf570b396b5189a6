import { and, eq, lt } from 'drizzle-orm'
import type { IdempotencyRecordView } from '../../core/limits/idempotency.ts'
import type { Database } from './open-database.ts'
import { idempotencyKeys } from './schema.ts'

export interface StoredResponse {
  status: number
  headers: [string, string][]
  body: string
}

export type IdempotencyRecord = IdempotencyRecordView & { response: StoredResponse | null }

export async function findIdempotencyRecord(
  db: Database,
  credentialId: string,
  key: string,
): Promise<IdempotencyRecord | null> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)))
  if (!row) return null
  return {
    fingerprint: row.fingerprint,
    state: row.state,
    lockedAtMs: row.lockedAtMs,
    expiresAtMs: row.expiresAtMs,
    response:
      row.state === 'done' && row.status !== null
        ? { status: row.status, headers: row.headers ?? [], body: row.body ?? '' }
        : null,
  }
}

/** Claims a key for a new request. Returns false when another record holds it (the caller re-reads and decides). */
export async function claimIdempotencyKey(
  db: Database,
  row: { credentialId: string; userId: string; key: string; fingerprint: string; nowMs: number; expiresAtMs: number },
): Promise<boolean> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({
      credentialId: row.credentialId,
      userId: row.userId,
      key: row.key,
      fingerprint: row.fingerprint,
      state: 'in-flight',
      lockedAtMs: row.nowMs,
      expiresAtMs: row.expiresAtMs,
    })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key })
  return inserted.length > 0
}

/**
 * Takes over a record that expired or whose holder stopped (lease over). The compare-and-set on the
 * observed lock time makes only one of several competing processes win.
 */
export async function takeOverIdempotencyKey(
  db: Database,
  row: {
    credentialId: string
    key: string
    fingerprint: string
    observedLockedAtMs: number
    nowMs: number
    expiresAtMs: number
  },
): Promise<boolean> {
  const updated = await db
    .update(idempotencyKeys)
    .set({
      fingerprint: row.fingerprint,
      state: 'in-flight',
      lockedAtMs: row.nowMs,
      expiresAtMs: row.expiresAtMs,
      status: null,
      headers: null,
      body: null,
    })
    .where(
      and(
        eq(idempotencyKeys.credentialId, row.credentialId),
        eq(idempotencyKeys.key, row.key),
        eq(idempotencyKeys.lockedAtMs, row.observedLockedAtMs),
      ),
    )
    .returning({ key: idempotencyKeys.key })
  return updated.length > 0
}

export async function completeIdempotencyKey(
  db: Database,
  credentialId: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', status: response.status, headers: response.headers, body: response.body })
    .where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)))
}

/** Forgets a key whose request failed with a server error, so the client's retry runs again. */
export async function releaseIdempotencyKey(db: Database, credentialId: string, key: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.credentialId, credentialId), eq(idempotencyKeys.key, key)))
}

export async function pruneIdempotencyKeys(db: Database, nowMs: number): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAtMs, nowMs))
}
