import {
  activeSigningKeyIds,
  encryptStoredPrivateJwk,
  insertFirstSigningKey,
  type NewSigningKey,
  readSigningKeys,
  rotateInSigningKey,
  type SigningKeyRow,
} from '../storage/signing-keys.ts'
import type { Database } from '../storage/open-database.ts'

// The token signing keys as the OAuth server keeps them (docs/oauth.md#signing-keys): what the keys mean,
// their generation, encryption and cache, is adapters/oauth/signing-keys.ts; the SQL is storage's.

/**
 * Every stored key, oldest first. An empty table gets its first key, made by `firstKey`, inserted only
 * while the table is still empty: when two processes start at once, one key wins and both read it back.
 */
export async function signingKeysOrFirst(
  db: Database,
  firstKey: () => Promise<NewSigningKey>,
): Promise<SigningKeyRow[]> {
  const rows = await readSigningKeys(db)
  if (rows.length > 0) return rows
  await insertFirstSigningKey(db, await firstKey())
  return readSigningKeys(db)
}

/**
 * Replaces a private key stored in clear with its encrypted form, a compare-and-set on the clear value so
 * two processes starting at once agree.
 */
export function encryptStoredKey(
  db: Database,
  kid: string,
  clear: Record<string, unknown>,
  encrypted: Record<string, unknown>,
): Promise<void> {
  return encryptStoredPrivateJwk(db, kid, clear, encrypted)
}

/**
 * Makes `row` the key that signs: retires every key in force (at the new key's creation time) and stores
 * the new one in one transaction. Returns the ids of the keys that were in force, read just before.
 */
export async function rotateInKey(db: Database, row: NewSigningKey): Promise<string[]> {
  const current = await activeSigningKeyIds(db)
  await rotateInSigningKey(db, row)
  return current
}
