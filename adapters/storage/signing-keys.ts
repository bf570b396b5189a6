import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm'
import { RETIRED_KEY_GRACE_MS } from '../../core/auth/lifetimes.ts'
import { atomically, type Database } from './open-database.ts'
import { signingKeys } from './schema.ts'

// The token signing keys as stored (docs/oauth.md#signing-keys); what they mean is adapters/oauth/signing-keys.ts.

export type SigningKeyRow = typeof signingKeys.$inferSelect

/** A new key: its JWKs as JSON text, the private one maybe encrypted. */
export interface NewSigningKey {
  kid: string
  alg: string
  privateJwk: string
  publicJwk: string
  createdAt: string
}

/** Every stored key, oldest first (the newest not retired is the one that signs). */
export function readSigningKeys(db: Database): Promise<SigningKeyRow[]> {
  return db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid))
}

/**
 * Stores the first key, only into an empty table, in one statement: when two processes start at once, one
 * key wins and both read it back.
 */
export async function insertFirstSigningKey(db: Database, row: NewSigningKey): Promise<void> {
  await db.run(sql`INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at)
      SELECT ${row.kid}, ${row.alg}, ${row.privateJwk}, ${row.publicJwk}, ${row.createdAt}
      WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`)
}

/**
 * Replaces a private key stored in clear with its encrypted form, a compare-and-set on the clear value so
 * two processes starting at once agree.
 */
export async function encryptStoredPrivateJwk(
  db: Database,
  kid: string,
  clear: Record<string, unknown>,
  encrypted: Record<string, unknown>,
): Promise<void> {
  await db
    .update(signingKeys)
    .set({ privateJwk: encrypted })
    .where(and(eq(signingKeys.kid, kid), sql`${signingKeys.privateJwk} = ${JSON.stringify(clear)}`))
}

/** The ids of the keys not retired. */
export async function activeSigningKeyIds(db: Database): Promise<string[]> {
  const rows = await db.select({ kid: signingKeys.kid }).from(signingKeys).where(isNull(signingKeys.retiredAt))
  return rows.map((row) => row.kid)
}

/** Retires every key in force (at the new key's creation time) and stores the new one, in one transaction. */
export async function rotateInSigningKey(db: Database, row: NewSigningKey): Promise<void> {
  await atomically(db, [
    db.update(signingKeys).set({ retiredAt: row.createdAt }).where(isNull(signingKeys.retiredAt)),
    db.insert(signingKeys).values({
      kid: row.kid,
      alg: row.alg,
      privateJwk: JSON.parse(row.privateJwk),
      publicJwk: JSON.parse(row.publicJwk),
      createdAt: row.createdAt,
    }),
  ])
}

/** Deletes signing keys retired longer than their last token lives (maintenance; docs/oauth.md#signing-keys). */
export async function pruneRetiredSigningKeys(db: Database, now: Date): Promise<void> {
  const before = new Date(now.getTime() - RETIRED_KEY_GRACE_MS).toISOString()
  await db.delete(signingKeys).where(lt(signingKeys.retiredAt, before))
}
