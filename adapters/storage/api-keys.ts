import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import { readRows } from './read-rows.ts'
import type { Database } from './open-database.ts'
import { apiKeys } from './schema.ts'

export type ApiKeyRow = typeof apiKeys.$inferSelect

export async function insertApiKey(db: Database, row: typeof apiKeys.$inferInsert): Promise<void> {
  await db.insert(apiKeys).values(row)
}

/**
 * Inserts a connect-issued key only while the credential that authorized it is still in force, in one
 * statement: a revocation committed before it leaves nothing behind, one committed after it finds the new
 * key to revoke (docs/security.md#connect-issued-keys). Returns false when the issuer is gone.
 */
export async function insertIssuedApiKey(db: Database, row: typeof apiKeys.$inferInsert): Promise<boolean> {
  const keyLive = row.issuedByKeyId
    ? sql`EXISTS (SELECT 1 FROM api_keys WHERE id = ${row.issuedByKeyId} AND revoked_at IS NULL)`
    : sql`1`
  const grantLive = row.issuedByGrantId
    ? sql`EXISTS (SELECT 1 FROM oauth_grants WHERE id = ${row.issuedByGrantId} AND revoked_at IS NULL)`
    : sql`1`
  const inserted = await db.all(sql`INSERT INTO api_keys
      (id, user_id, key_hash, prefix, label, scopes, connect_client, device_hint, issued_by_key_id, issued_by_grant_id, created_at)
    SELECT ${row.id}, ${row.userId}, ${row.keyHash}, ${row.prefix}, ${row.label}, ${JSON.stringify(row.scopes)},
      ${row.connectClient ?? null}, ${row.deviceHint ?? null}, ${row.issuedByKeyId ?? null}, ${row.issuedByGrantId ?? null}, ${row.createdAt}
    WHERE ${keyLive} AND ${grantLive}
    RETURNING id`)
  return inserted.length > 0
}

/** What a request needs of its key: who, which scopes, and when it was last used. */
export interface ActiveApiKey {
  id: string
  userId: string
  scopes: string[]
  connectClient: string | null
  lastUsedAt: string | null
}

/**
 * Looks a key up by its SHA-256 hash; revoked keys are never returned. On every API call's path, so it is one
 * fixed statement, prepared once and read at once on an embedded file (`$all`), without drizzle's placeholder
 * filling in between (4.8 against 3.2 µs a lookup: docs/benchmarks.md#the-uncached-list).
 */
const ACTIVE_KEY_BY_HASH =
  'SELECT id, user_id, scopes, connect_client, last_used_at FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL'

/** At once on an embedded file (core/at-once.ts). */
export function findActiveApiKey(db: Database, keyHash: string): MaybePromise<ActiveApiKey | null> {
  return andThen(readRows(db, ACTIVE_KEY_BY_HASH, [keyHash]), ([row]) => {
    if (!row) return null
    return {
      id: row.id as string,
      userId: row.user_id as string,
      scopes: JSON.parse(row.scopes as string) as string[],
      connectClient: row.connect_client as string | null,
      lastUsedAt: row.last_used_at as string | null,
    }
  })
}

/** Whether a key's use is due to be recorded: its last recorded use is a minute old or more (or none). */
export function keyUseDue(key: ActiveApiKey, now: Date): boolean {
  return !key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) >= 60_000
}

/**
 * Records the key's use. Called only when `keyUseDue` says the row just read is a minute old, so a busy key
 * does not turn every read into a write (an UPDATE takes the write lock even when it changes nothing); the
 * WHERE keeps two processes from both writing.
 */
export async function touchApiKey(db: Database, key: ActiveApiKey, now: Date): Promise<void> {
  const threshold = new Date(now.getTime() - 60_000).toISOString()
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now.toISOString() })
    .where(and(eq(apiKeys.id, key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, threshold))))
}

export async function listApiKeys(db: Database, userId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
}

/** The person's keys in force, oldest first (the admin CLI's `key list`). */
export async function listApiKeysOldestFirst(db: Database, userId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
}

/**
 * Revokes a key and every key issued through it by the connect flow, transitively
 * (docs/security.md#connect-issued-keys). `userId` null: whoever owns it (the admin CLI).
 */
export async function revokeApiKey(db: Database, userId: string | null, id: string, now: string): Promise<boolean> {
  const owner = userId === null ? undefined : eq(apiKeys.userId, userId)
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), owner, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
  if (rows.length === 0) return false
  await revokeIssuedKeys(db, { keyId: id }, now)
  return true
}

/**
 * Revokes the keys a credential issued through the connect flow, and the keys those issued, and so on.
 * Keys already revoked are walked too, so nothing below them survives.
 */
export async function revokeIssuedKeys(
  db: Database,
  issuer: { keyId: string } | { grantId: string },
  now: string,
): Promise<void> {
  const root = 'keyId' in issuer ? sql`issued_by_key_id = ${issuer.keyId}` : sql`issued_by_grant_id = ${issuer.grantId}`
  await db.run(sql`WITH RECURSIVE issued(id) AS (
      SELECT id FROM api_keys WHERE ${root}
      UNION SELECT k.id FROM api_keys k JOIN issued ON k.issued_by_key_id = issued.id
    )
    UPDATE api_keys SET revoked_at = ${now} WHERE revoked_at IS NULL AND id IN (SELECT id FROM issued)`)
}
