import { sha256 } from '@oslojs/crypto/sha2'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'

// RFC 7636 §4.1: 43–128 characters of the unreserved set.
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/
// An S256 challenge is base64url(SHA-256) without padding: always exactly 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** Whether a string may be a PKCE code verifier. @see https://www.rfc-editor.org/rfc/rfc7636#section-4.1 */
export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value)
}

/** Whether a string has the shape of an S256 code challenge. @see https://www.rfc-editor.org/rfc/rfc7636#section-4.2 */
export function isS256CodeChallenge(value: string): boolean {
  return S256_CHALLENGE.test(value)
}

/** `BASE64URL(SHA256(ASCII(code_verifier)))`. @see https://www.rfc-editor.org/rfc/rfc7636#section-4.2 */
export function calculatePkceS256Challenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)))
}

/**
 * Whether `verifier` answers the S256 `challenge`. A verifier of the wrong shape never matches.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.6
 */
export function verifyPkceS256(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isS256CodeChallenge(challenge)) return false
  const encoder = new TextEncoder()
  // Compare in constant time, so response timing tells nothing about how close a guess was.
  return constantTimeEqual(encoder.encode(calculatePkceS256Challenge(verifier)), encoder.encode(challenge))
}
