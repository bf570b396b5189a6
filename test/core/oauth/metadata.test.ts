import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  authorizationServerMetadata,
  oauthEndpoints,
  protectedResourceMetadata,
  resourceIdentifiers,
} from '../../../core/oauth/metadata.ts'
import { SCOPES } from '../../../core/types.ts'

const BASE = 'https://readlater.example'

test('oauthEndpoints() puts everything under {base}/api/auth', () => {
  assert.deepEqual(oauthEndpoints(BASE), {
    issuer: 'https://readlater.example/api/auth',
    authorization: 'https://readlater.example/api/auth/oauth2/authorize',
    token: 'https://readlater.example/api/auth/oauth2/token',
    registration: 'https://readlater.example/api/auth/oauth2/register',
    revocation: 'https://readlater.example/api/auth/oauth2/revoke',
    jwks: 'https://readlater.example/api/auth/jwks',
  })
})

test('authorizationServerMetadata() has the RFC 8414 fields and the agent_auth block', () => {
  const doc = authorizationServerMetadata(BASE)
  assert.equal(doc.issuer, `${BASE}/api/auth`)
  assert.deepEqual(doc.response_types_supported, ['code'])
  assert.deepEqual(doc.grant_types_supported, ['authorization_code', 'refresh_token'])
  assert.deepEqual(doc.code_challenge_methods_supported, ['S256'])
  assert.deepEqual(doc.token_endpoint_auth_methods_supported, ['none'])
  assert.deepEqual(doc.revocation_endpoint_auth_methods_supported, ['none'])
  assert.deepEqual(doc.scopes_supported, [...SCOPES, 'offline_access'])
  assert.equal(doc.authorization_response_iss_parameter_supported, true)
  assert.equal(doc.client_id_metadata_document_supported, true)
  assert.equal(doc.jwks_uri, `${BASE}/api/auth/jwks`)
  assert.deepEqual(doc.agent_auth, {
    identity_types_supported: ['anonymous'],
    register_uri: `${BASE}/api/auth/oauth2/register`,
    claim_uri: `${BASE}/api/auth/oauth2/token`,
    revocation_uri: `${BASE}/api/auth/oauth2/revoke`,
  })
})

test('protectedResourceMetadata() names the resource and leaves offline_access out', () => {
  const [api, mcp] = resourceIdentifiers(BASE)
  assert.equal(mcp, `${BASE}/mcp`)
  for (const resource of [api, mcp]) {
    const doc = protectedResourceMetadata(BASE, resource)
    assert.equal(doc.resource, resource)
    assert.deepEqual(doc.authorization_servers, [`${BASE}/api/auth`])
    assert.deepEqual(doc.scopes_supported, [...SCOPES])
    assert.deepEqual(doc.bearer_methods_supported, ['header'])
  }
})
