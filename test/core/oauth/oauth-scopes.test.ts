import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  apiScopes,
  isOAuthScope,
  OAUTH_SCOPES,
  SCOPE_DESCRIPTIONS,
  sortScopes,
} from '../../../core/oauth/oauth-scopes.ts'
import { isOAuthError, OAuthError, toOAuthErrorBody } from '../../../core/oauth/oauth-error.ts'
import { SCOPES } from '../../../core/types.ts'

test('OAUTH_SCOPES are the API scopes plus offline_access, each with its docs/mcp.md#tools description', () => {
  assert.deepEqual(OAUTH_SCOPES, [...SCOPES, 'offline_access'])
  assert.deepEqual(Object.keys(SCOPE_DESCRIPTIONS).sort(), [...OAUTH_SCOPES].sort())
  assert.equal(SCOPE_DESCRIPTIONS['saved-items:capture'], 'save a URL to the queue')
  assert.equal(SCOPE_DESCRIPTIONS.offline_access, 'receive a refresh token')
})

test('isOAuthScope() accepts offline_access besides the API scopes', () => {
  assert.equal(isOAuthScope('offline_access'), true)
  assert.equal(isOAuthScope('folders:read'), true)
  assert.equal(isOAuthScope('openid'), false)
})

test('apiScopes() drops offline_access and unknown values', () => {
  assert.deepEqual(apiScopes(['offline_access', 'folders:read', 'admin']), ['folders:read'])
})

test('sortScopes() orders by the scope table', () => {
  assert.deepEqual(sortScopes(['offline_access', 'account:read', 'saved-items:capture']), [
    'saved-items:capture',
    'account:read',
    'offline_access',
  ])
})

test('OAuthError carries an RFC 6749 code and renders { error, error_description }', () => {
  const error = new OAuthError('invalid_grant', 'The code was already used')
  assert.equal(isOAuthError(error), true)
  assert.equal(isOAuthError(new Error('x')), false)
  assert.deepEqual(toOAuthErrorBody(error), { error: 'invalid_grant', error_description: 'The code was already used' })
})
