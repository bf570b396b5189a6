import { beforeAll, describe, expect, test } from 'bun:test'
import assert from 'node:assert/strict'
import { endpointRulesOf, matchEndpoint, type EndpointRule } from '../../adapters/http/endpoint-rules.ts'
import { createHarness } from '../helpers/harness.ts'
import { ENDPOINT_RULES, ENDPOINT_TABLE } from './endpoint-table.ts'

// The guard's access table is read off the routes (each states its scope once, next to its handler).

let rules: EndpointRule[]
beforeAll(async () => {
  const h = await createHarness()
  rules = endpointRulesOf((h.server.app as unknown as { routes: Parameters<typeof endpointRulesOf>[0] }).routes)
})

const key = (rule: EndpointRule): string => `${rule.method} ${rule.pattern}`

describe('endpointRulesOf()', () => {
  test('reads exactly the documented table off the routes: every guarded route, its scope, its body', () => {
    expect([...rules].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [...ENDPOINT_RULES].sort((a, b) => key(a).localeCompare(key(b))),
    )
  })

  test('leaves pages, OAuth endpoints and documents to themselves', () => {
    for (const pattern of [
      '/',
      '/settings',
      '/sign-in',
      '/api/auth/oauth2/token',
      '/openapi.json',
      '/.well-known/oauth-protected-resource',
    ]) {
      expect(rules.some((rule) => rule.pattern === pattern)).toBe(false)
    }
  })
})

describe('matchEndpoint()', () => {
  for (const [method, path, pattern, access, jsonBody] of ENDPOINT_TABLE) {
    test(`maps ${method} ${path} to ${access}`, () => {
      assert.deepEqual(matchEndpoint(rules, method, path), { method, pattern, access, jsonBody })
    })
  }

  test('matchEndpoint() answers HEAD with the GET rule', () => {
    assert.equal(matchEndpoint(rules, 'HEAD', '/v1/saved-items')?.access, 'saved-items:read')
    assert.equal(matchEndpoint(rules, 'HEAD', '/v1/captures'), undefined)
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
        matchEndpoint(rules, 'GET', path) ?? matchEndpoint(rules, 'POST', path) ?? matchEndpoint(rules, 'DELETE', path),
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
    for (const [method, path] of wrong) assert.equal(matchEndpoint(rules, method, path), undefined, `${method} ${path}`)
  })
})
