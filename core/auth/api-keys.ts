import type { RandomSource } from '../types.ts'
import { generateSecret, hashSecret } from './secrets.ts'

/** Every API key starts with this, so leaked keys are easy to recognise and scan for. @see docs/security.md#credentials */
export const API_KEY_PREFIX = 'rlk_'

const API_KEY_PATTERN = /^rlk_[A-Za-z0-9_-]{43}$/
const DISPLAY_PREFIX_LENGTH = 12

/**
 * A new API key: `rlk_` and 32 random bytes as 43 base64url characters (256 bits).
 * @see docs/security.md#scopes
 */
export function generateApiKey(random: RandomSource): string {
  return generateSecret(random, API_KEY_PREFIX)
}

/**
 * Lowercase hex SHA-256 of the key: what the database stores and looks keys up by.
 * An unsalted fast hash is enough because the key carries 256 random bits; there is nothing to
 * brute-force, unlike a password.
 * @see docs/security.md#scopes
 */
export function hashApiKey(key: string): string {
  return hashSecret(key)
}

/**
 * Whether a bearer value has the shape of an API key (and so is not a JWT), without a lookup.
 * @see docs/security.md#scopes
 */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value)
}

/**
 * The first 12 characters (`rlk_` and 8 more) shown in settings so a person can tell keys apart;
 * 48 bits of the secret are not enough to help an attacker.
 * @see docs/web.md#pages
 */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH)
}
