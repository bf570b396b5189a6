import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as core from '../../../core/index.ts'
import { TOOLS } from '../../../core/mcp/index.ts'
import { createClient, ReadlaterError } from '../../../client/index.ts'

// docs/embedding.md#the-package: `readlater/core`, `readlater/mcp` and `readlater/client` load and work on
// Bun, Deno and Node alike (this file runs on all three).

test('readlater/core: the pure domain', () => {
  assert.equal(
    core.normalizeUrl('https://WWW.Example.com/a?utm_source=x&b=1').normalizedUrl,
    'https://example.com/a?b=1',
  )
  assert.deepEqual(core.normalizeFolderName('  Later  '), { name: 'Later', key: 'later' })
  assert.ok(core.SCOPES.includes('webhooks:manage'))
  assert.ok(core.WEBHOOK_EVENTS.includes('saved_item.created'))
  assert.throws(() => core.parseWebhookEvents([]), core.ValidationError)
})

test('readlater/mcp: the tool table', () => {
  assert.ok(TOOLS.some((tool) => tool.name === 'list_changes' && tool.scope === 'saved-items:read'))
})

test('readlater/client: a write carries an Idempotency-Key kept across a 429 retry; errors are typed', async () => {
  const seen: { method: string; url: string; key: string | null; auth: string | null }[] = []
  let answer429 = true
  const client = createClient({
    baseUrl: 'https://read.example.com/',
    token: 'rlk_test',
    fetch: (async (url: string, init: RequestInit) => {
      const headers = new Headers(init.headers)
      seen.push({ method: init.method!, url, key: headers.get('idempotency-key'), auth: headers.get('authorization') })
      if (answer429) {
        answer429 = false
        return new Response(JSON.stringify({ _tag: 'RateLimitExceeded', message: 'wait' }), {
          status: 429,
          headers: { 'retry-after': '0' },
        })
      }
      if (url.endsWith('/v1/folders')) return Response.json({ id: 'f1', name: 'Later' })
      return Response.json({ _tag: 'FolderNotFoundError', message: 'No folder', folderId: 'nope' }, { status: 404 })
    }) as unknown as typeof fetch,
  })
  assert.deepEqual(await client.folders.create('Later'), { id: 'f1', name: 'Later' })
  assert.equal(seen.length, 2)
  assert.equal(seen[0]!.url, 'https://read.example.com/v1/folders')
  assert.equal(seen[0]!.auth, 'Bearer rlk_test')
  assert.ok(seen[0]!.key)
  assert.equal(seen[1]!.key, seen[0]!.key)
  await assert.rejects(client.folders.rename('nope', 'x'), (error: unknown) => {
    assert.ok(error instanceof ReadlaterError)
    assert.equal(error.status, 404)
    assert.equal(error.tag, 'FolderNotFoundError')
    return true
  })
})
