import { SCOPES } from '../types.ts'
import { OAUTH_SCOPES } from './oauth-scopes.ts'

/** The authorization server's URLs, all under `{base}/api/auth`. @see docs/oauth.md#authorization-server */
export interface OAuthEndpoints {
  issuer: string
  authorization: string
  token: string
  registration: string
  revocation: string
  jwks: string
}

export function oauthEndpoints(baseUrl: string): OAuthEndpoints {
  const issuer = `${baseUrl}/api/auth`
  return {
    issuer,
    authorization: `${issuer}/oauth2/authorize`,
    token: `${issuer}/oauth2/token`,
    registration: `${issuer}/oauth2/register`,
    revocation: `${issuer}/oauth2/revoke`,
    jwks: `${issuer}/jwks`,
  }
}

/**
 * The resources a token may be issued for (RFC 8707): the REST API at `{base}` and the MCP endpoint at
 * `{base}/mcp`. A token's `aud` is exactly one of them. @see docs/security.md#credentials
 */
export function resourceIdentifiers(baseUrl: string): readonly [string, string] {
  return [baseUrl, `${baseUrl}/mcp`]
}

/**
 * The RFC 8414 document, served the same at every path clients try. `agent_auth` is static: clients
 * register anonymously and the person supplies the identity, and "claiming" a credential is the token
 * endpoint. @see docs/oauth.md#metadata and https://www.rfc-editor.org/rfc/rfc8414#section-2
 */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  const endpoints = oauthEndpoints(baseUrl)
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    jwks_uri: endpoints.jwks,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    // Clients may use an https URL of their metadata document as client_id instead of registering.
    client_id_metadata_document_supported: true,
    agent_auth: {
      identity_types_supported: ['anonymous'],
      register_uri: endpoints.registration,
      claim_uri: endpoints.token,
      revocation_uri: endpoints.revocation,
    },
  }
}

/**
 * The RFC 9728 document for one of our resources. `offline_access` is left out: it concerns the
 * authorization server, not what the resource accepts. @see https://www.rfc-editor.org/rfc/rfc9728#section-2
 */
export function protectedResourceMetadata(baseUrl: string, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [oauthEndpoints(baseUrl).issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource.endsWith('/mcp') ? 'Readlater MCP server' : 'Readlater API',
  }
}
