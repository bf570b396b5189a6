import { asc, sql } from 'drizzle-orm'
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import type { Clock } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { signingKeys } from '../storage/schema.ts'

export const SIGNING_ALG = 'ES256'

export interface SigningKeySet {
  /** The key new tokens are signed with: the oldest one, so every process picks the same. */
  active: { kid: string; privateKey: CryptoKey }
  /** The public halves, for the JWKS document. */
  publicJwks: JWK[]
  /** The public key for a `kid`, or null when it is not ours. */
  verificationKey(kid: string): CryptoKey | null
}

const cache = new WeakMap<Database, Promise<SigningKeySet>>()

/**
 * The service's signing keys, generated on first start and kept in the database, so every process (and
 * every restart) signs and verifies with the same key. Read once per process, then cached.
 */
export function loadSigningKeys(db: Database, clock: Clock): Promise<SigningKeySet> {
  let keys = cache.get(db)
  if (!keys) {
    keys = loadOrCreate(db, clock)
    // A failed load (database down) must not stick: the next request tries again.
    keys.catch(() => cache.delete(db))
    cache.set(db, keys)
  }
  return keys
}

async function loadOrCreate(db: Database, clock: Clock): Promise<SigningKeySet> {
  let rows = await readKeys(db)
  if (rows.length === 0) {
    const pair = await generateKeyPair(SIGNING_ALG, { extractable: true })
    const publicJwk = await exportJWK(pair.publicKey)
    const privateJwk = await exportJWK(pair.privateKey)
    const kid = await calculateJwkThumbprint(publicJwk)
    // Insert only into an empty table, in one statement: when two processes start at once, one key
    // wins and both read it back below.
    await db.run(sql`INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at)
      SELECT ${kid}, ${SIGNING_ALG}, ${JSON.stringify(privateJwk)}, ${JSON.stringify(publicJwk)}, ${clock.now().toISOString()}
      WHERE NOT EXISTS (SELECT 1 FROM signing_keys)`)
    rows = await readKeys(db)
  }
  const oldest = rows[0]!
  const publicKeys = new Map<string, CryptoKey>()
  for (const row of rows) publicKeys.set(row.kid, await importJWK({ ...row.publicJwk, alg: row.alg }, row.alg) as CryptoKey)
  return {
    active: { kid: oldest.kid, privateKey: await importJWK({ ...oldest.privateJwk, alg: oldest.alg }, oldest.alg) as CryptoKey },
    publicJwks: rows.map((row) => ({ ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' })),
    verificationKey: (kid) => publicKeys.get(kid) ?? null,
  }
}

function readKeys(db: Database) {
  return db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid))
}
