import { compactDecrypt, CompactEncrypt, type JWK } from 'jose'

/** How an encrypted private key is stored in `signing_keys.private_jwk`: a compact JWE of the JWK. */
export type EncryptedJwk = { jwe: string } & Record<string, unknown>

export function isEncryptedJwk(value: unknown): value is EncryptedJwk {
  return typeof value === 'object' && value !== null && typeof (value as { jwe?: unknown }).jwe === 'string'
}

const SALT = new TextEncoder().encode('readlater/signing-keys')
const INFO = new TextEncoder().encode('A256GCM key for private JWKs')

/**
 * The AES-256-GCM key for private keys at rest, derived from `ENCRYPTION_KEY` with HKDF-SHA256, so any
 * string of at least 32 characters makes a full-strength key (docs/oauth.md#signing-keys).
 */
async function contentKey(secret: string): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveBits'])
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info: INFO }, material, 256),
  )
}

export async function encryptPrivateJwk(jwk: JWK, secret: string): Promise<EncryptedJwk> {
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(jwk)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'jwk+json' })
    .encrypt(await contentKey(secret))
  return { jwe }
}

/** Throws when `secret` is not the key the JWK was encrypted with (GCM authenticates). */
export async function decryptPrivateJwk(stored: EncryptedJwk, secret: string): Promise<JWK> {
  const { plaintext } = await compactDecrypt(stored.jwe, await contentKey(secret), {
    keyManagementAlgorithms: ['dir'],
    contentEncryptionAlgorithms: ['A256GCM'],
  })
  return JSON.parse(new TextDecoder().decode(plaintext)) as JWK
}
