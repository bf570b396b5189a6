import { sha256 } from '@oslojs/crypto/sha2'
import { encodeBase64urlNoPadding, encodeHexLowerCase } from '@oslojs/encoding'
import type { RandomSource } from '../types.ts'

/**
 * A new opaque secret (session token, authorization code, refresh token, connect code): 32 random bytes
 * as 43 base64url characters, optionally after a recognisable prefix.
 */
export function generateSecret(random: RandomSource, prefix = ''): string {
  return prefix + encodeBase64urlNoPadding(random.fill(new Uint8Array(32)))
}

/**
 * Lowercase hex SHA-256: how every secret is stored and looked up. Unsalted is enough for 256-bit random
 * values; there is nothing to brute-force, unlike a password.
 */
export function hashSecret(secret: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(secret)))
}
