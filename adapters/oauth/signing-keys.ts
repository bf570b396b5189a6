import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import type { Clock } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { decryptPrivateJwk, encryptPrivateJwk, isEncryptedJwk } from './key-encryption.ts'
import { RETIRED_KEY_GRACE_MS } from '../../core/auth/lifetimes.ts'
import { encryptStoredKey, rotateInKey, signingKeysOrFirst } from '../app/signing-key-store.ts'
import type { NewSigningKey, SigningKeyRow } from '../storage/signing-keys.ts'

export const SIGNING_ALG = 'ES256'

export { RETIRED_KEY_GRACE_MS }

/** How long a process trusts its cached key set before reading it again (a rotation by another process). */
const CACHE_MS = 60_000
/** A token naming a key we do not know makes us read the set again, at most this often. */
const UNKNOWN_KID_RELOAD_MS = 5_000

/** The keys could not be used: a one-line reason for the operator (docs/oauth.md#signing-keys). */
export class SigningKeyError extends Error {}

export interface SigningKeySet {
  /** The key new tokens are signed with: the newest one not retired, so every process picks the same. */
  active: { kid: string; privateKey: CryptoKey }
  /** The public halves of the keys in force and of retired keys still in their grace period, for the JWKS. */
  publicJwks: JWK[]
  /** The public key for a `kid`, or null when it is not ours (or retired past its grace period). */
  verificationKey(kid: string): CryptoKey | null
}

interface Cached {
  keys: Promise<SigningKeySet>
  loadedAtMs: number
}

const cache = new WeakMap<Database, Cached>()

/**
 * The service's signing keys, generated on first start and kept in the database, so every process (and
 * every restart) signs and verifies with the same key. Cached per process for a minute; a token that
 * names a key the cache does not hold (a rotation elsewhere) makes it read the set again sooner.
 * With `encryptionKey` the private keys are kept encrypted (clear ones found are encrypted in place).
 */
export function loadSigningKeys(
  db: Database,
  clock: Clock,
  encryptionKey?: string,
  options: { kid?: string } = {},
): Promise<SigningKeySet> {
  const nowMs = clock.now().getTime()
  const cached = cache.get(db)
  const fresh = cached && nowMs - cached.loadedAtMs < CACHE_MS && nowMs >= cached.loadedAtMs
  if (cached && fresh && !options.kid) return cached.keys
  if (cached && fresh && options.kid) {
    return cached.keys.then((keys) =>
      keys.verificationKey(options.kid!) || nowMs - cached.loadedAtMs < UNKNOWN_KID_RELOAD_MS
        ? keys
        : reload(db, clock, encryptionKey, nowMs),
    )
  }
  return reload(db, clock, encryptionKey, nowMs)
}

function reload(db: Database, clock: Clock, encryptionKey: string | undefined, nowMs: number): Promise<SigningKeySet> {
  const keys = loadOrCreate(db, clock, encryptionKey)
  // A failed load (database down, wrong key) must not stick: the next call tries again.
  keys.catch(() => {
    if (cache.get(db)?.keys === keys) cache.delete(db)
  })
  cache.set(db, { keys, loadedAtMs: nowMs })
  return keys
}

async function newKeyRow(clock: Clock, encryptionKey: string | undefined): Promise<NewSigningKey> {
  const pair = await generateKeyPair(SIGNING_ALG, { extractable: true })
  const publicJwk = await exportJWK(pair.publicKey)
  const privateJwk = await exportJWK(pair.privateKey)
  const stored = encryptionKey ? await encryptPrivateJwk(privateJwk, encryptionKey) : privateJwk
  return {
    kid: await calculateJwkThumbprint(publicJwk),
    alg: SIGNING_ALG,
    privateJwk: JSON.stringify(stored),
    publicJwk: JSON.stringify(publicJwk),
    createdAt: clock.now().toISOString(),
  }
}

async function loadOrCreate(db: Database, clock: Clock, encryptionKey: string | undefined): Promise<SigningKeySet> {
  // The first key is inserted only into an empty table: when two processes start at once, one key wins and
  // both read it back.
  const rows = await signingKeysOrFirst(db, () => newKeyRow(clock, encryptionKey))
  if (encryptionKey) await encryptClearKeys(db, rows, encryptionKey)
  const nowMs = clock.now().getTime()
  const usable = rows.filter(
    (row) => row.retiredAt === null || nowMs - Date.parse(row.retiredAt) < RETIRED_KEY_GRACE_MS,
  )
  const active = rows.filter((row) => row.retiredAt === null).at(-1)
  if (!active) throw new SigningKeyError('every signing key is retired; run `bun server.ts signing-key rotate`')
  const publicKeys = new Map<string, CryptoKey>()
  for (const row of usable)
    publicKeys.set(row.kid, (await importJWK({ ...row.publicJwk, alg: row.alg }, row.alg)) as CryptoKey)
  const privateJwk = await readPrivateJwk(active.privateJwk, encryptionKey)
  return {
    active: {
      kid: active.kid,
      privateKey: (await importJWK({ ...privateJwk, alg: active.alg }, active.alg)) as CryptoKey,
    },
    publicJwks: usable.map((row) => ({ ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' })),
    verificationKey: (kid) => publicKeys.get(kid) ?? null,
  }
}

async function readPrivateJwk(stored: Record<string, unknown>, encryptionKey: string | undefined): Promise<JWK> {
  if (!isEncryptedJwk(stored)) return stored as JWK
  if (!encryptionKey)
    throw new SigningKeyError(
      'the token signing keys are stored encrypted: set ENCRYPTION_KEY to the key they were encrypted with',
    )
  try {
    return await decryptPrivateJwk(stored, encryptionKey)
  } catch {
    throw new SigningKeyError(
      'ENCRYPTION_KEY does not decrypt the token signing keys: it is not the key they were encrypted with',
    )
  }
}

/** Encrypts keys stored in clear, each with a compare-and-set so two processes starting at once agree. */
async function encryptClearKeys(db: Database, rows: SigningKeyRow[], encryptionKey: string): Promise<void> {
  for (const row of rows) {
    if (isEncryptedJwk(row.privateJwk)) continue
    const encrypted = await encryptPrivateJwk(row.privateJwk as JWK, encryptionKey)
    await encryptStoredKey(db, row.kid, row.privateJwk, encrypted)
    row.privateJwk = encrypted
  }
}

/**
 * Makes a new key the one that signs and retires the others: they keep verifying (and stay in the JWKS)
 * until every token they signed has expired, then maintenance deletes them. Returns the new key's id.
 * @see docs/oauth.md#signing-keys
 */
export async function rotateSigningKey(
  db: Database,
  clock: Clock,
  encryptionKey?: string,
): Promise<{ kid: string; retired: string[] }> {
  // Refuse before changing anything when the stored keys cannot be read with this configuration.
  await loadOrCreate(db, clock, encryptionKey)
  const row = await newKeyRow(clock, encryptionKey)
  const current = await rotateInKey(db, row)
  cache.delete(db)
  return { kid: row.kid, retired: current }
}

/**
 * A jose key resolver over our keys: a `kid` the cached set does not hold makes it read the set again
 * (a key rotated in by another process), so verification never waits for the cache to expire.
 */
export function signingKeyResolver(db: Database, clock: Clock, encryptionKey: string | undefined) {
  return async (header: { kid?: string }): Promise<CryptoKey> => {
    const kid = header.kid
    const key = kid ? (await loadSigningKeys(db, clock, encryptionKey, { kid })).verificationKey(kid) : null
    if (!key) throw new Error('unknown signing key')
    return key
  }
}
