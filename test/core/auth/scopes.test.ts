import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  hasScope,
  isScope,
  isSubsetOf,
  parseScopeList,
  requireScope,
  requireScopes,
} from '../../../core/auth/scopes.ts'
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

test('requireScopes() passes with every scope, and names only the missing ones while asking for all', () => {
  assert.equal(
    requireScopes(['saved-items:capture', 'folders:write'], ['saved-items:capture', 'folders:write']),
    undefined,
  )
  assert.throws(
    () => requireScopes(['saved-items:capture'], ['saved-items:capture', 'folders:write']),
    (error: unknown) =>
      (error as { _tag?: string })._tag === 'InsufficientScopeError' &&
      (error as { requiredScope: string }).requiredScope === 'folders:write' &&
      (error as { challengeScope: string }).challengeScope === 'saved-items:capture folders:write',
  )
})
