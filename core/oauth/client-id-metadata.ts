import { validateClientRegistration, type ClientRegistration } from './client-registration.ts'
import { OAuthError } from './oauth-error.ts'

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25
 * "Client ID Metadata Documents"): a client names itself with an https URL as `client_id`, and the
 * authorization server reads the client's metadata from that URL instead of a registration. Clients
 * that support it (VS Code, Claude) skip dynamic registration altogether.
 */

export const MAX_CLIENT_ID_URL_LENGTH = 2048
/** A metadata document is a few hundred bytes; anything larger is not one. */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024

/**
 * Whether a `client_id` is a metadata-document URL: https, a path other than `/`, no credentials, no
 * fragment, no `.`/`..` segments, in canonical form (the draft's §3 requirements). Anything else is
 * looked up as a registered client id.
 */
export function isClientIdMetadataUrl(clientId: string): boolean {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH || !clientId.startsWith('https://')) return false
  let url: URL
  try {
    url = new URL(clientId)
  } catch {
    return false
  }
  if (url.username || url.password || clientId.includes('#') || url.pathname === '/') return false
  // Only the canonical spelling: WHATWG parsing resolves `.`/`..` (also as %2e), lowercases the host and
  // drops a default port, so any of those makes `href` differ. The document must name this exact string.
  return url.href === clientId
}

const refuse = (description: string): OAuthError => new OAuthError('invalid_client_metadata', description)

/**
 * Checks a fetched metadata document: it must be a JSON object whose `client_id` is exactly the URL it
 * came from, describe a public client (no secret can exist for a document anyone may read), and pass the
 * same rules as a dynamic registration. Throws {@link OAuthError}.
 */
export function validateClientIdMetadataDocument(document: unknown, clientIdUrl: string): ClientRegistration {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw refuse('The client metadata document is not a JSON object')
  const body = document as Record<string, unknown>
  if (body.client_id !== clientIdUrl)
    throw refuse('The client metadata document names another client_id than the URL it was fetched from')
  if (body.client_secret !== undefined || body.client_secret_expires_at !== undefined)
    throw refuse('A client metadata document must not carry a client secret')
  return validateClientRegistration(body)
}
