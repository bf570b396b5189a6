import { Elysia, t } from 'elysia'
import { exchangeConnect, issueConnectCode } from '../../app/connect.ts'
import type { RouteContext } from '../route-context.ts'
import {
  commonWriteErrors,
  ConnectAuthorizeRequest,
  ConnectAuthorizeResponse,
  ConnectExchangeRequest,
  ConnectExchangeResponse,
  Errors,
} from '../schemas.ts'
import { NO_REPLAY_HEADER } from '../idempotency.ts'

const tags = ['Connect']

const connectErrors = { 400: t.Union([Errors.ValidationError, Errors.ConnectError]) }

/**
 * The client connection flow (docs/oauth.md#connect-flow): a signed-in caller asks for a one-time code
 * bound to a PKCE challenge, and the client trades it, with the verifier, for its own API key. The guard in
 * front has already checked the credential (authorize) or the per-IP limit (exchange), the body size and
 * the JSON content type. Both answers carry a secret, so neither may be cached.
 */
export const connectRoutes = ({ deps, guard }: RouteContext) => {
  return new Elysia()
    .use(guard)
    .post(
      '/connect/authorize',
      async ({ body, principal, set }) => {
        const code = await issueConnectCode(deps, principal, body)
        set.headers['cache-control'] = 'no-store'
        // The code is a secret: an Idempotency-Key retry runs again instead of replaying it from storage.
        set.headers[NO_REPLAY_HEADER] = '1'
        return { code }
      },
      {
        body: ConnectAuthorizeRequest,
        response: {
          200: ConnectAuthorizeResponse,
          401: Errors.Unauthorized,
          429: Errors.RateLimitExceeded,
          500: Errors.InternalError,
          ...commonWriteErrors,
          ...connectErrors,
        },
        auth: 'any-credential',
        detail: {
          summary: 'Start connecting a client: get a one-time code for its API key',
          description: [
            'Called by an already signed-in caller (for example the web app, or an existing key) on behalf of a client that has no credential yet. The key the client gets belongs to the credential making this call: revoking that API key or OAuth grant revokes it too (a key connected from a web session is personal). The code is bound to the person, the client, the redirect URI, the PKCE challenge, the scopes, the label and the device hint; it is single use and valid for 5 minutes. Hand it to the client at `redirectUri`; the client exchanges it at POST /connect/exchange.',
            'The scopes asked for must be held by the credential making this call: a client never gets more than its connector has. Value problems are ConnectError: `unknown_client`, `invalid_redirect_uri`, `invalid_scope` (unknown, empty, or not held). Shape problems are ValidationError: a missing, mistyped or extra field, a `codeChallengeMethod` other than `S256`, a malformed `codeChallenge`, a blank or overlong `label`, an overlong `deviceHint`. Answers carry `Cache-Control: no-store`.',
          ].join('\n\n'),
          tags,
        },
      },
    )
    .post(
      '/connect/exchange',
      async ({ body, set }) => {
        const exchanged = await exchangeConnect(deps, body)
        set.headers['cache-control'] = 'no-store'
        return exchanged
      },
      {
        body: ConnectExchangeRequest,
        response: {
          200: ConnectExchangeResponse,
          ...connectErrors,
          413: Errors.PayloadTooLargeError,
          415: Errors.UnsupportedMediaTypeError,
          429: Errors.RateLimitExceeded,
          500: Errors.InternalError,
        },
        public: true,
        // A code is a guessable secret: exchanges are limited per client IP.
        ipLimit: 'api',
        detail: {
          summary: 'Finish connecting a client: trade the code and PKCE verifier for an API key',
          description: [
            'Needs no credential; limited per client IP (`RateLimit-*` headers on every answer, 429 with `Retry-After` past the limit). The key returned is a personal API key tied to the client and device hint: it appears in settings with its label and can be revoked there, and captures made with it default to `captureChannel` = the client.',
            'ConnectError codes: `unknown_client` (the code is left untouched); `invalid_code` (unknown, already used or expired, or the credential that authorized it has been revoked since); `client_mismatch` (issued to the other client); `invalid_verifier` (does not match the challenge). Any exchange that reaches a live code spends it, whatever the outcome, so a stolen code allows one guess at the verifier. Answers carry `Cache-Control: no-store`.',
          ].join('\n\n'),
          tags,
        },
      },
    )
}
