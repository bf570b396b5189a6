import { Elysia } from 'elysia'
import { registerClient } from '../../app/oauth-clients.ts'
import { validateClientRegistration } from '../../../core/oauth/client-registration.ts'
import { loadSigningKeys } from '../../oauth/signing-keys.ts'
import { handleTokenRequest, revokeToken } from '../../oauth/token-endpoint.ts'
import { answerOAuth, CORS_HEADERS, oauthJson, preflight, readOAuthForm, readOAuthJson } from '../oauth-http.ts'
import type { RouteContext } from '../route-context.ts'

// The machine-facing endpoints of the authorization server at {base}/api/auth (docs/oauth.md#authorization-server).
// Not REST operations, so hidden from /openapi.json; the metadata documents describe them instead.

export const oauthRoutes = ({ deps, guard }: RouteContext) => {
  const hidden = { detail: { hide: true } }
  // Public endpoints that guessable input (codes, refresh tokens) or costly work reaches without a
  // credential: each has its own per-IP bucket, refused with an RFC 6749 error.
  const raw = { ...hidden, parse: 'none' as const, ipLimit: 'oauth' as const }

  return (
    new Elysia()
      .use(guard)
      // RFC 7591: public clients only; the answer repeats what was registered and never holds a secret.
      .post(
        '/api/auth/oauth2/register',
        ({ request }) =>
          answerOAuth(deps, async () => {
            const registration = validateClientRegistration(await readOAuthJson(request))
            return oauthJson(201, await registerClient(deps, registration))
          }),
        raw,
      )
      .options('/api/auth/oauth2/register', () => preflight('POST'), hidden)

      .post(
        '/api/auth/oauth2/token',
        ({ request }) =>
          answerOAuth(deps, async () => {
            return oauthJson(200, await handleTokenRequest(deps, await readOAuthForm(request)))
          }),
        raw,
      )
      .options('/api/auth/oauth2/token', () => preflight('POST'), hidden)

      .post(
        '/api/auth/oauth2/revoke',
        ({ request }) =>
          answerOAuth(deps, async () => {
            await revokeToken(deps, await readOAuthForm(request))
            return new Response(null, { status: 200, headers: { 'cache-control': 'no-store', ...CORS_HEADERS } })
          }),
        raw,
      )
      .options('/api/auth/oauth2/revoke', () => preflight('POST'), hidden)

      .get(
        '/api/auth/jwks',
        () =>
          answerOAuth(deps, async () => {
            const keys = await loadSigningKeys(deps.db, deps.clock, deps.config.encryptionKey)
            return new Response(JSON.stringify({ keys: keys.publicJwks }), {
              headers: {
                'content-type': 'application/jwk-set+json',
                'cache-control': 'public, max-age=300',
                ...CORS_HEADERS,
              },
            })
          }),
        hidden,
      )
      .options('/api/auth/jwks', () => preflight('GET'), hidden)
  )
}
