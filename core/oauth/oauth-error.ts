/**
 * The error codes our OAuth endpoints answer with, from RFC 6749 §4.1.2.1 / §5.2, RFC 7591 §3.2.2,
 * RFC 7009 §2.2.1 and RFC 8707 §2.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'consent_required'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'

/**
 * An OAuth protocol failure: a family apart from the REST errors, answered as RFC 6749
 * `{ error, error_description }`. The HTTP adapter picks the status.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export class OAuthError extends Error {
  readonly _tag = 'OAuthError'
  readonly error: OAuthErrorCode
  constructor(error: OAuthErrorCode, description: string) {
    super(description)
    this.error = error
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return typeof value === 'object' && value !== null && (value as { _tag?: unknown })._tag === 'OAuthError'
}

/** The RFC 6749 §5.2 body. `error_description` is plain ASCII text meant for the client's developer. */
export function toOAuthErrorBody(error: OAuthError): { error: OAuthErrorCode; error_description: string } {
  return { error: error.error, error_description: error.message }
}
