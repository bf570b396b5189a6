import { beforeAll, describe, expect, test } from 'bun:test'
import { SCOPES } from '../../core/types.ts'
import { BASE, createHarness, type Harness } from '../helpers/harness.ts'
import { ISSUER, send } from './oauth-helpers.ts'

const AS_PATHS = [
  '/.well-known/oauth-authorization-server/api/auth',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration/api/auth',
  '/api/auth/.well-known/openid-configuration',
]

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})

describe('authorization server metadata', () => {
  test('is the same document at all four paths, with the exact issuer and the agent_auth block', async () => {
    const replies = await Promise.all(AS_PATHS.map((path) => send(h, 'GET', path)))
    for (const reply of replies) {
      expect(reply.status).toBe(200)
      expect(reply.headers.get('content-type')).toBe('application/json')
      expect(reply.headers.get('access-control-allow-origin')).toBe('*')
      expect(reply.text).toBe(replies[0]!.text)
    }
    expect(replies[0]!.body).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth2/authorize`,
      token_endpoint: `${ISSUER}/oauth2/token`,
      registration_endpoint: `${ISSUER}/oauth2/register`,
      revocation_endpoint: `${ISSUER}/oauth2/revoke`,
      jwks_uri: `${ISSUER}/jwks`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPES, 'offline_access'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      agent_auth: {
        identity_types_supported: ['anonymous'],
        register_uri: `${ISSUER}/oauth2/register`,
        claim_uri: `${ISSUER}/oauth2/token`,
        revocation_uri: `${ISSUER}/oauth2/revoke`,
      },
    })
  })

  test('is not in /openapi.json, which stays REST-only', async () => {
    const doc = (await send(h, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> }
    expect(
      Object.keys(doc.paths).filter((path) => path.includes('well-known') || path.startsWith('/api/auth')),
    ).toEqual([])
  })
})

describe('protected resource metadata', () => {
  test('{base} and {base}/mcp each name themselves, our issuer, and the scopes without offline_access', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', BASE],
      ['/.well-known/oauth-protected-resource/mcp', `${BASE}/mcp`],
    ] as const) {
      const reply = await send(h, 'GET', path)
      expect(reply.status).toBe(200)
      expect(reply.headers.get('access-control-allow-origin')).toBe('*')
      expect(reply.body).toEqual({
        resource,
        authorization_servers: [ISSUER],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
      })
    }
  })

  test('is where the 401 of the REST API points', async () => {
    const reply = await send(h, 'GET', '/v1/saved-items')
    expect(reply.status).toBe(401)
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    )
  })
})

describe('JWKS', () => {
  test('publishes one public ES256 key with a kid, never the private part', async () => {
    const reply = await send(h, 'GET', '/api/auth/jwks')
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('application/jwk-set+json')
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    const { keys } = reply.body as { keys: Record<string, string>[] }
    expect(keys).toHaveLength(1)
    expect(keys[0]).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.any(String),
      y: expect.any(String),
      kid: expect.any(String),
      alg: 'ES256',
      use: 'sig',
    })
    expect(keys[0]!.d).toBeUndefined()
  })
})

describe('CORS preflights', () => {
  const machineFacing: [string, string][] = [
    ...AS_PATHS.map((path): [string, string] => [path, 'GET']),
    ['/.well-known/oauth-protected-resource', 'GET'],
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
    ['/api/auth/jwks', 'GET'],
    ['/api/auth/oauth2/register', 'POST'],
    ['/api/auth/oauth2/token', 'POST'],
    ['/api/auth/oauth2/revoke', 'POST'],
  ]
  for (const [path, method] of machineFacing) {
    test(`OPTIONS ${path} answers 204 allowing ${method}, Authorization and Content-Type from any origin`, async () => {
      const reply = await send(h, 'OPTIONS', path, {
        headers: {
          origin: 'https://agent.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type',
        },
      })
      expect(reply.status).toBe(204)
      expect(reply.headers.get('access-control-allow-origin')).toBe('*')
      expect(reply.headers.get('access-control-allow-methods')).toContain(method)
      const allowed = (reply.headers.get('access-control-allow-headers') ?? '').toLowerCase()
      expect(allowed).toContain('authorization')
      expect(allowed).toContain('content-type')
    })
  }
})
