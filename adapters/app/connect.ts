import { isScope } from '../../core/auth/scopes.ts'
import { generateSecret } from '../../core/auth/secrets.ts'
import { connectError } from '../../core/connect/connect-errors.ts'
import { exchangeConnectCode } from '../../core/connect/connect-exchange.ts'
import {
  checkConnectAuthorize,
  connectCodeExpiry,
  type ConnectAuthorizeInput,
} from '../../core/connect/connect-request.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal, Scope } from '../../core/types.ts'
import { connectCodeStore, insertConnectCode } from '../storage/connect-codes.ts'
import { issueApiKey } from './api-keys.ts'
import type { AppDeps } from './deps.ts'
import { hashSecret } from './secret-hash.ts'

/**
 * The credential a connect code (and the key traded for it) belongs to: an API key or an OAuth grant, so
 * revoking that revokes the key (docs/security.md#connect-issued-keys). A web session issues personal keys.
 */
function issuerOf(principal: Principal): { issuedByKeyId: string | null; issuedByGrantId: string | null } {
  // credentialId is `key:<id>`, `grant:<id>` or `session:<…>` (adapters/http/credentials.ts).
  const id = principal.credentialId.slice(principal.credentialId.indexOf(':') + 1)
  return {
    issuedByKeyId: principal.kind === 'api-key' ? id : null,
    issuedByGrantId: principal.kind === 'oauth' ? id : null,
  }
}

/**
 * Issues a one-time connect code (docs/oauth.md#connect-flow) bound to the caller, its credential and the
 * checked request; the code is returned once and stored only as its hash. ConnectError or ValidationError
 * when the request asks for what the caller cannot give.
 */
export async function issueConnectCode(
  deps: AppDeps,
  principal: Principal,
  request: ConnectAuthorizeInput,
): Promise<string> {
  const grant = checkConnectAuthorize(request, principal.scopes)
  const now = deps.clock.now()
  const code = generateSecret(deps.random)
  await insertConnectCode(deps.db, {
    codeHash: hashSecret(code),
    userId: principal.userId,
    ...issuerOf(principal),
    client: grant.client,
    redirectUri: grant.redirectUri,
    codeChallenge: grant.codeChallenge,
    scopes: grant.scopes,
    label: grant.label,
    deviceHint: grant.deviceHint,
    expiresAt: toTimestamp(connectCodeExpiry(now)),
  })
  return code
}

/**
 * Trades a connect code and its PKCE verifier for the client's own API key (docs/oauth.md#connect-flow):
 * the code is spent first, then checked; the key belongs to the credential that authorized the code, so
 * an issuer revoked since is `invalid_code`.
 */
export async function exchangeConnect(
  deps: AppDeps,
  request: { client: string; code: string; codeVerifier: string },
): Promise<{ apiKey: string; scopes: Scope[]; label: string }> {
  const { spent, client } = await exchangeConnectCode(
    connectCodeStore(deps.db),
    { client: request.client, codeHash: hashSecret(request.code), codeVerifier: request.codeVerifier },
    deps.clock.now(),
  )
  const scopes = spent.scopes.filter(isScope)
  const issuedBy = spent.issuedByKeyId
    ? { keyId: spent.issuedByKeyId }
    : spent.issuedByGrantId
      ? { grantId: spent.issuedByGrantId }
      : null
  const issued = await issueApiKey(deps, {
    userId: spent.userId,
    label: spent.label,
    scopes,
    connectClient: client,
    deviceHint: spent.deviceHint,
    issuedBy,
  })
  if (!issued)
    throw connectError(
      'invalid_code',
      'The credential that authorized this code has been revoked; start the connection again',
    )
  const { id, key: apiKey } = issued
  // Who connected what, for the operator; never the code, verifier or key.
  deps.log('info', { msg: 'connect key issued', userId: spent.userId, client, apiKeyId: id })
  return { apiKey, scopes, label: spent.label }
}
