import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import {
  ENDPOINT_RULES,
  hasScope,
  isScope,
  isSubsetOf,
  matchEndpoint,
  parseScopeList,
  requireScope,
} from '../../../core/auth/scopes.ts'
import type { EndpointAccess } from '../../../core/auth/scopes.ts'
import { SCOPES } from '../../../core/types.ts'

test('isScope() accepts every contract scope and nothing else', () => {
  for (const scope of SCOPES) assert.equal(isScope(scope), true, scope)
  for (const value of ['', 'offline_access', 'saved-items', 'SAVED-ITEMS:READ', 'saved-items:read ', 'folders:*']) {
    assert.equal(isScope(value), false, value)
  }
})

test('hasScope() checks exact membership', () => {
  assert.equal(hasScope(['saved-items:read', 'folders:read'], 'folders:read'), true)
  assert.equal(hasScope(['saved-items:read'], 'saved-items:write'), false)
  assert.equal(hasScope([], 'account:read'), false)
})

test('requireScope() passes when granted', () => {
  assert.equal(requireScope(['account:read'], 'account:read'), undefined)
})

test('requireScope() throws InsufficientScopeError naming the scope', () => {
  assert.throws(
    () => requireScope(['saved-items:read'], 'saved-items:delete'),
    (error: unknown) => {
      assert.equal((error as { _tag?: unknown })._tag, 'InsufficientScopeError')
      assert.equal((error as { requiredScope?: unknown }).requiredScope, 'saved-items:delete')
      assert.match((error as Error).message, /"saved-items:delete"/)
      return true
    },
  )
})

test('isSubsetOf() compares requested against granted', () => {
  assert.equal(isSubsetOf(['folders:read'], ['folders:read', 'saved-items:read']), true)
  assert.equal(isSubsetOf([], ['folders:read']), true)
  assert.equal(isSubsetOf([], []), true)
  assert.equal(isSubsetOf(['folders:read', 'folders:write'], ['folders:read']), false)
  assert.equal(isSubsetOf(['folders:read'], []), false)
})

test('parseScopeList() splits on spaces and +, drops empties and duplicates in order', () => {
  assert.deepEqual(parseScopeList('saved-items:read folders:read'), ['saved-items:read', 'folders:read'])
  assert.deepEqual(parseScopeList('saved-items:read+folders:read'), ['saved-items:read', 'folders:read'])
  assert.deepEqual(parseScopeList('  b  a + b a '), ['b', 'a'])
  assert.deepEqual(parseScopeList(''), [])
  assert.deepEqual(parseScopeList(' + '), [])
})

describe('matchEndpoint()', () => {
  const table: readonly [method: string, path: string, pattern: string, access: EndpointAccess, jsonBody: boolean][] = [
    ['GET', '/health', '/health', 'public', false],
    ['GET', '/v1/health', '/v1/health', 'public', false],
    ['POST', '/v1/captures', '/v1/captures', 'saved-items:capture', true],
    ['GET', '/v1/saved-items', '/v1/saved-items', 'saved-items:read', false],
    ['POST', '/v1/saved-items/abc/open', '/v1/saved-items/:id/open', 'saved-items:write', false],
    ['POST', '/v1/saved-items/abc/read', '/v1/saved-items/:id/read', 'saved-items:write', false],
    ['POST', '/v1/saved-items/abc/unread', '/v1/saved-items/:id/unread', 'saved-items:write', false],
    ['POST', '/v1/saved-items/abc/read-state', '/v1/saved-items/:id/read-state', 'saved-items:write', true],
    ['PUT', '/v1/saved-items/abc/folder', '/v1/saved-items/:id/folder', 'saved-items:write', true],
    [
      'DELETE',
      '/v1/saved-items/017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
      '/v1/saved-items/:id',
      'saved-items:delete',
      false,
    ],
    ['GET', '/v1/folders', '/v1/folders', 'folders:read', false],
    ['POST', '/v1/folders', '/v1/folders', 'folders:write', true],
    ['PATCH', '/v1/folders/f1', '/v1/folders/:id', 'folders:write', true],
    ['DELETE', '/v1/folders/f1', '/v1/folders/:id', 'folders:delete', false],
    ['GET', '/v1/me', '/v1/me', 'account:read', false],
    ['POST', '/connect/authorize', '/connect/authorize', 'any-credential', true],
    ['POST', '/connect/exchange', '/connect/exchange', 'public', true],
    ['POST', '/mcp', '/mcp', 'any-credential', true],
    ['GET', '/mcp', '/mcp', 'any-credential', false],
    ['DELETE', '/mcp', '/mcp', 'any-credential', false],
  ]

  test('ENDPOINT_RULES has one row per table entry', () => {
    assert.equal(ENDPOINT_RULES.length, table.length)
  })

  for (const [method, path, pattern, access, jsonBody] of table) {
    test(`matchEndpoint() maps ${method} ${path} to ${access}`, () => {
      assert.deepEqual(matchEndpoint(method, path), { method, pattern, access, jsonBody })
    })
  }

  test('matchEndpoint() answers HEAD with the GET rule', () => {
    assert.equal(matchEndpoint('HEAD', '/v1/saved-items')?.access, 'saved-items:read')
    assert.equal(matchEndpoint('HEAD', '/v1/captures'), undefined)
  })

  test('matchEndpoint() returns undefined for unknown paths', () => {
    for (const path of [
      '/',
      '',
      '/v1',
      '/v2/folders',
      '/v1/folders/',
      '/v1/saved-items/',
      '/v1/saved-items//open',
      '/v1/saved-items/a/b/open',
      '/v1/saved-items/a/archive',
      '/V1/folders',
      '/v1/folders/a/b',
      '/mcp/',
      '/mcp/x',
      '/MCP',
    ]) {
      assert.equal(
        matchEndpoint('GET', path) ?? matchEndpoint('POST', path) ?? matchEndpoint('DELETE', path),
        undefined,
        path,
      )
    }
  })

  test('matchEndpoint() returns undefined for wrong methods', () => {
    const wrong: readonly [string, string][] = [
      ['GET', '/v1/captures'],
      ['POST', '/v1/saved-items'],
      ['GET', '/v1/saved-items/a/open'],
      ['DELETE', '/v1/folders'],
      ['PUT', '/v1/folders/a'],
      ['PATCH', '/v1/saved-items/a'],
      ['GET', '/connect/authorize'],
      ['POST', '/v1/me'],
      ['OPTIONS', '/v1/folders'],
      ['get', '/v1/folders'],
    ]
    for (const [method, path] of wrong) assert.equal(matchEndpoint(method, path), undefined, `${method} ${path}`)
  })
})
