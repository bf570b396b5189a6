import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isClientIdMetadataUrl, validateClientIdMetadataDocument } from '../../../core/oauth/client-id-metadata.ts'
import { OAuthError } from '../../../core/oauth/oauth-error.ts'

const URL_ID = 'https://app.example.com/oauth/client-metadata.json'

test('isClientIdMetadataUrl() takes https URLs with a path, in canonical form', () => {
  for (const id of [
    URL_ID,
    'https://app.example.com/c?v=2',
    'https://app.example.com:8443/client.json',
    'https://vscode.dev/oauth/client-metadata.json',
  ]) {
    assert.equal(isClientIdMetadataUrl(id), true, id)
  }
})

test('isClientIdMetadataUrl() refuses anything a registered client id or a spoof could look like', () => {
  for (const id of [
    '0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    'http://app.example.com/client.json',
    'https://app.example.com/',
    'https://app.example.com',
    'https://user:pw@app.example.com/c.json',
    'https://app.example.com/c.json#frag',
    'https://app.example.com/a/../c.json',
    'https://app.example.com/./c.json',
    'https://app.example.com/%2e%2e/c.json',
    'https://APP.example.com/c.json',
    'https://app.example.com:443/c.json',
    'https://app.example.com/c json',
    `https://app.example.com/${'a'.repeat(2100)}`,
    'javascript:alert(1)',
    '',
  ]) {
    assert.equal(isClientIdMetadataUrl(id), false, id)
  }
})

const doc = (fields: Record<string, unknown> = {}) => ({
  client_id: URL_ID,
  client_name: 'VS Code',
  redirect_uris: ['http://127.0.0.1/callback', 'https://vscode.dev/redirect'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...fields,
})

test('validateClientIdMetadataDocument() reads a public client exactly like a registration', () => {
  assert.deepEqual(validateClientIdMetadataDocument(doc(), URL_ID), {
    clientName: 'VS Code',
    redirectUris: ['http://127.0.0.1/callback', 'https://vscode.dev/redirect'],
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: null,
  })
})

test('validateClientIdMetadataDocument() refuses a document for another client_id, a secret, a confidential client, bad redirect URIs, non-objects', () => {
  const refusals: [unknown, RegExp][] = [
    [doc({ client_id: 'https://evil.example/c.json' }), /another client_id/],
    [doc({ client_id: undefined }), /another client_id/],
    [doc({ client_secret: 's3cret' }), /client secret/],
    [doc({ token_endpoint_auth_method: 'private_key_jwt' }), /public clients/],
    [doc({ redirect_uris: [] }), /at least one/],
    [doc({ redirect_uris: ['javascript:alert(1)'] }), /./],
    [doc({ client_name: 'Bad\u202eName' }), /control, invisible or bidirectional/],
    [[doc()], /not a JSON object/],
    ['{}', /not a JSON object/],
    [null, /not a JSON object/],
  ]
  for (const [input, message] of refusals) {
    assert.throws(
      () => validateClientIdMetadataDocument(input, URL_ID),
      (error: unknown) => error instanceof OAuthError && message.test(error.message),
      JSON.stringify(input),
    )
  }
})
