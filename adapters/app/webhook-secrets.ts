import { encodeBase64 } from '@oslojs/encoding'
import { compactDecrypt, CompactEncrypt } from 'jose'
import type { RandomSource } from '../../core/types.ts'

const SALT = new TextEncoder().encode('readlater/webhook-secrets')
const INFO = new TextEncoder().encode('A256GCM key for webhook signing secrets')
const SEALED = 'enc:'

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(random: RandomSource): string {
  return `whsec_${encodeBase64(random.fill(new Uint8Array(32)))}`
}

const keys = new Map<string, Promise<Uint8Array>>()

/** AES-256-GCM key derived from ENCRYPTION_KEY with HKDF-SHA256, apart from the signing keys' one. */
function contentKey(encryptionKey: string): Promise<Uint8Array> {
  let key = keys.get(encryptionKey)
  if (!key) {
    key = (async () => {
      const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(encryptionKey), 'HKDF', false, [
        'deriveBits',
      ])
      return new Uint8Array(
        await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: SALT, info: INFO }, material, 256),
      )
    })()
    keys.set(encryptionKey, key)
  }
  return key
}

/**
 * How a secret is stored (docs/webhooks.md#secrets): it signs every message, so it cannot be hashed; with
 * ENCRYPTION_KEY it is stored as `enc:` + a compact JWE (`dir`, A256GCM), otherwise as issued.
 */
export async function sealSecret(secret: string, encryptionKey: string | undefined): Promise<string> {
  if (!encryptionKey) return secret
  const jwe = await new CompactEncrypt(new TextEncoder().encode(secret))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .encrypt(await contentKey(encryptionKey))
  return SEALED + jwe
}

/** The secret of a stored value; throws when it was sealed and ENCRYPTION_KEY is missing or another one. */
export async function openSecret(stored: string, encryptionKey: string | undefined): Promise<string> {
  if (!stored.startsWith(SEALED)) return stored
  if (!encryptionKey) throw new Error('webhook secret is encrypted and ENCRYPTION_KEY is not set')
  const { plaintext } = await compactDecrypt(stored.slice(SEALED.length), await contentKey(encryptionKey), {
    keyManagementAlgorithms: ['dir'],
    contentEncryptionAlgorithms: ['A256GCM'],
  })
  return new TextDecoder().decode(plaintext)
}
