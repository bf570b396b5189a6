import { CONNECT_CODE_TTL_MS } from '../auth/lifetimes.ts'
import { isScope, isSubsetOf } from '../auth/scopes.ts'
import { ValidationError } from '../errors.ts'
import type { ConnectClient, Scope } from '../types.ts'
import { isAllowedRedirectUri, isConnectClient, redirectUriRuleOf } from './connect-clients.ts'
import { connectError } from './connect-errors.ts'
import { displayTextProblem } from '../text/display-text.ts'
import { isS256CodeChallenge } from '../oauth/pkce.ts'

/**
 * The shape of an S256 challenge as a JSON Schema pattern, for the HTTP schema: BASE64URL(SHA-256) without
 * padding is always 43 characters. Rejecting other shapes at authorize catches the usual client bugs (the
 * verifier itself, a hex digest, padded or standard base64) before a code is spent on an exchange that
 * could never succeed.
 * @see https://www.rfc-editor.org/rfc/rfc7636#section-4.2
 */
export const CODE_CHALLENGE_PATTERN = '^[A-Za-z0-9_-]{43}$'

/** Longest label and device hint, in code points after trimming. @see docs/api.md#limits */
export const MAX_CONNECT_LABEL_LENGTH = 100
export const MAX_DEVICE_HINT_LENGTH = 200

/** The body of POST /connect/authorize once its shape is checked (docs/oauth.md#connect-flow). */
export interface ConnectAuthorizeInput {
  client: string
  redirectUri: string
  codeChallenge: string
  scopes: readonly string[]
  label: string
  deviceHint?: string | null
}

/** What a connect code is bound to: every value already checked. */
export interface ConnectGrant {
  client: ConnectClient
  redirectUri: string
  codeChallenge: string
  scopes: Scope[]
  label: string
  deviceHint: string | null
}

/**
 * Checks the values of an authorize request against the caller's own scopes and returns what the code
 * will be bound to. Throws ConnectError for the conditions docs/oauth.md#connect-flow names, in the order a client
 * would fix them (client, then where to return, then what to ask for); a blank, overlong,
 * control-character or invisible label or device hint is a ValidationError, as no ConnectError code describes it.
 * Duplicate scopes are dropped, keeping the first occurrence's order.
 * @see docs/oauth.md#connect-flow
 */
export function checkConnectAuthorize(input: ConnectAuthorizeInput, callerScopes: readonly string[]): ConnectGrant {
  if (!isConnectClient(input.client)) {
    throw connectError('unknown_client', 'Unknown client: it must be "chrome-extension" or "raycast"')
  }
  if (!isAllowedRedirectUri(input.client, input.redirectUri)) {
    throw connectError('invalid_redirect_uri', redirectUriRuleOf(input.client))
  }
  // The HTTP schema already enforces this; checked here too so the rule holds for every caller of the core.
  if (!isS256CodeChallenge(input.codeChallenge)) {
    throw new ValidationError(
      'body.codeChallenge: must be the 43-character BASE64URL(SHA-256(codeVerifier)) of RFC 7636 S256',
    )
  }
  const scopes = [...new Set(input.scopes)]
  if (scopes.length === 0) throw connectError('invalid_scope', 'scopes must name at least one scope')
  const unknown = scopes.filter((scope) => !isScope(scope))
  // Unknown values are not echoed back: they are caller input of any length.
  if (unknown.length > 0)
    throw connectError(
      'invalid_scope',
      `scopes contains ${unknown.length === 1 ? 'a value that is' : `${unknown.length} values that are`} not a scope of this API (offline_access is for OAuth clients only)`,
    )
  if (!isSubsetOf(scopes, callerScopes)) {
    const missing = scopes.filter((scope) => !callerScopes.includes(scope))
    throw connectError(
      'invalid_scope',
      `The credential making this call does not hold ${missing.join(', ')}; a connected client can get at most the caller's own scopes`,
    )
  }
  return {
    client: input.client,
    redirectUri: input.redirectUri,
    codeChallenge: input.codeChallenge,
    scopes: scopes as Scope[],
    label: checkText('label', input.label, MAX_CONNECT_LABEL_LENGTH) ?? blank('label'),
    deviceHint: input.deviceHint == null ? null : checkText('deviceHint', input.deviceHint, MAX_DEVICE_HINT_LENGTH),
  }
}

/**
 * Trimmed text, or null when only whitespace. Both are shown in settings, one per key row, so line breaks,
 * controls and invisible or bidirectional formatting are refused rather than silently altered, and so is
 * text that shows nothing (Hangul fillers, blanks). Lengths count code points, as a person would.
 */
function checkText(field: string, raw: string, maxLength: number): string | null {
  const value = raw.trim()
  if (value === '') return null
  const problem = displayTextProblem(value, maxLength)
  if (problem) throw new ValidationError(`body.${field}: ${problem}`)
  return value
}

function blank(field: string): never {
  throw new ValidationError(`body.${field}: must not be empty or only whitespace`)
}

/** When a code issued at `issuedAt` stops being accepted (inclusive). */
export function connectCodeExpiry(issuedAt: Date): Date {
  return new Date(issuedAt.getTime() + CONNECT_CODE_TTL_MS)
}
