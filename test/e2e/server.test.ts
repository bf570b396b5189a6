import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  BUN,
  childEnv,
  request,
  ROOT,
  runServerCommand,
  startServer,
  waitForLine,
  type HttpReply,
  type ServerProcess,
} from './processes.ts'

// The real thing: `bun server.ts` in its own process, the admin CLI as its own processes, fetch() over TCP.

const dir = mkdtempSync(join(tmpdir(), 'readlater-e2e-'))
const env = { DATABASE_URL: `file:${join(dir, 'x.db')}` }
const email = 'e2e-person@example.com'
let server: ServerProcess | undefined
let userId: string
let key: string
let narrowKey: string
const replies: HttpReply[] = []

const call = async (method: string, path: string, options: Parameters<typeof request>[3] = {}): Promise<HttpReply> => {
  const reply = await request(server!.url, method, path, options)
  replies.push(reply)
  return reply
}
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  call(method, path, { token: key, body, headers })

beforeAll(async () => {
  server = await startServer(env)
  const user = await runServerCommand(['user', 'create', '--email', email, '--password', 'a long password'], env)
  expect(user).toEqual({ code: 0, stdout: [expect.stringMatching(/^[0-9a-f-]{36}$/)], stderr: [] })
  userId = user.stdout[0]!
  const scopes =
    'saved-items:capture,saved-items:read,saved-items:write,saved-items:delete,folders:read,folders:write,folders:delete,account:read'
  const created = await runServerCommand(['key', 'create', '--email', email, '--scopes', scopes, '--label', 'e2e'], env)
  expect(created.code).toBe(0)
  key = created.stdout.at(-1)!
  expect(key).toMatch(/^rlk_[A-Za-z0-9_-]{43}$/)
  const narrow = await runServerCommand(
    ['key', 'create', '--email', email, '--scopes', 'saved-items:read', '--label', 'narrow'],
    env,
  )
  narrowKey = narrow.stdout.at(-1)!
}, 20_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('bun server.ts over real HTTP', () => {
  test('/health answers without a credential', async () => {
    const reply = await call('GET', '/health')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ ok: true })
    expect((await call('GET', '/v1/health')).body).toEqual({ ok: true })
  })

  test('a call without a credential is 401 with a resource_metadata challenge; a bad key adds invalid_token', async () => {
    const metadata = `${server!.base}/.well-known/oauth-protected-resource`
    const missing = await call('GET', '/v1/saved-items')
    expect(missing.status).toBe(401)
    expect(missing.body).toEqual({ _tag: 'Unauthorized', message: expect.any(String) })
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`)
    const wrong = await call('GET', '/v1/saved-items', { token: `rlk_${'x'.repeat(43)}` })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"')
    expect(wrong.headers.get('www-authenticate')).toContain(`resource_metadata="${metadata}"`)
    const forbidden = await call('POST', '/v1/captures', {
      token: narrowKey,
      body: { url: 'https://example.com/nope' },
    })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toEqual({
      _tag: 'InsufficientScopeError',
      message: expect.any(String),
      requiredScope: 'saved-items:capture',
    })
    expect(forbidden.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="saved-items:capture", resource_metadata="${metadata}"`,
    )
  })

  test('/v1/me names the person the CLI created', async () => {
    const reply = await api('GET', '/v1/me')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ id: userId, email })
    expect(reply.headers.get('ratelimit-limit')).toBe('600')
  })

  test('capture, recapture, folders, read state, open and delete work end to end', async () => {
    const captured = await api('POST', '/v1/captures', {
      url: 'https://www.Example.com/e2e/article/?utm_source=x&b=2&a=1#top',
      tags: ['ai'],
    })
    expect(captured.status).toBe(201)
    expect(captured.body.captureResult).toBe('created')
    const item = captured.body.savedItem
    expect(item).toMatchObject({
      normalizedUrl: 'https://example.com/e2e/article?a=1&b=2',
      host: 'example.com',
      isRead: false,
      tags: ['ai'],
      folder: null,
      captureChannel: 'api',
      enrichmentStatus: 'pending',
    })

    const recaptured = await api('POST', '/v1/captures', {
      url: 'https://example.com/e2e/article?b=2&a=1',
      tags: ['tools'],
    })
    expect(recaptured.status).toBe(200)
    expect(recaptured.body.captureResult).toBe('updated')
    expect(recaptured.body.savedItem.id).toBe(item.id)
    expect(recaptured.body.savedItem.tags).toEqual(['ai', 'tools'])

    const list = await api('GET', '/v1/saved-items')
    expect(list.status).toBe(200)
    expect(list.body.savedItems.map((i: { id: string }) => i.id)).toEqual([item.id])

    const folder = await api('POST', '/v1/folders', { name: 'Reading' })
    expect(folder.status).toBe(200)
    expect(folder.body).toEqual({ id: expect.any(String), name: 'Reading' })
    const renamed = await api('PATCH', `/v1/folders/${folder.body.id}`, { name: 'Deep reading' })
    expect(renamed.body).toEqual({ id: folder.body.id, name: 'Deep reading' })
    const moved = await api('PUT', `/v1/saved-items/${item.id}/folder`, { folderId: folder.body.id })
    expect(moved.body.folder).toEqual({ id: folder.body.id, name: 'Deep reading' })
    const inFolder = await api('GET', `/v1/saved-items?folder=${folder.body.id}`)
    expect(inFolder.body.savedItems.map((i: { id: string }) => i.id)).toEqual([item.id])
    expect((await api('GET', '/v1/folders')).body).toEqual({ folders: [{ id: folder.body.id, name: 'Deep reading' }] })

    expect((await api('POST', `/v1/saved-items/${item.id}/read`)).body.isRead).toBe(true)
    expect((await api('POST', `/v1/saved-items/${item.id}/unread`)).body.isRead).toBe(false)
    expect((await api('POST', `/v1/saved-items/${item.id}/read-state`, { isRead: true })).body.isRead).toBe(true)
    await api('POST', `/v1/saved-items/${item.id}/unread`)
    const opened = await api('POST', `/v1/saved-items/${item.id}/open`)
    expect(opened.status).toBe(200)
    expect(opened.body.isRead).toBe(true)

    const folderDeleted = await api('DELETE', `/v1/folders/${folder.body.id}`)
    expect(folderDeleted.status).toBe(204)
    expect(folderDeleted.text).toBe('')
    const afterFolderDelete = await api('GET', '/v1/saved-items')
    expect(afterFolderDelete.body.savedItems).toHaveLength(1)
    expect(afterFolderDelete.body.savedItems[0].folder).toBeNull()
    expect((await api('GET', '/v1/folders')).body).toEqual({ folders: [] })

    expect((await api('DELETE', `/v1/saved-items/${item.id}`)).status).toBe(204)
    expect((await api('DELETE', `/v1/saved-items/${item.id}`)).status).toBe(204)
    expect((await api('GET', '/v1/saved-items')).body).toEqual({ savedItems: [] })
    const missing = await api('POST', `/v1/saved-items/${item.id}/read`)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ _tag: 'SavedItemNotFoundError', message: expect.any(String), savedItemId: item.id })
  })

  test('an Idempotency-Key replays the first capture', async () => {
    const body = { url: 'https://example.com/e2e/idempotent' }
    const first = await api('POST', '/v1/captures', body, { 'idempotency-key': 'e2e-1' })
    expect(first.status).toBe(201)
    const replay = await api('POST', '/v1/captures', body, { 'idempotency-key': 'e2e-1' })
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.text).toBe(first.text)
    const list = await api('GET', '/v1/saved-items')
    expect(list.body.savedItems.map((i: { id: string }) => i.id)).toEqual([first.body.savedItem.id])
  })

  test('stdout has one JSON log line per request, with requestId and status, and never the key or its hash', async () => {
    const lastId = replies.at(-1)!.headers.get('x-request-id')!
    await waitForLine(server!.stdout, (line) => line.includes(lastId))
    const lines = server!.stdout.filter((line) => line.trim() !== '')
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const entry of parsed) {
      expect(typeof entry.level).toBe('string')
      expect(typeof entry.time).toBe('string')
    }
    for (const reply of replies) {
      const requestId = reply.headers.get('x-request-id')
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
      const matching = parsed.filter((entry) => entry.requestId === requestId)
      expect(matching).toEqual([expect.objectContaining({ msg: 'request', requestId, status: reply.status })])
    }
    const output = server!.stdout.join('\n') + server!.stderr.join('\n')
    for (const secret of [key, narrowKey]) {
      expect(output).not.toContain(secret)
      expect(output).not.toContain(createHash('sha256').update(secret).digest('hex'))
    }
  })
})

describe('bodies past every cap, over real HTTP (docs/api.md#limits)', () => {
  // Bun.serve's own limit would answer a bare 413 with no typed body; server.ts sets none, and each route
  // refuses by its own cap.
  const sixtyMiB = new Uint8Array(60 * 1024 * 1024).fill(97)

  test('a declared 60 MiB capture is 413 PayloadTooLargeError, a 60 MiB import 400 ImportFormatError', async () => {
    const capture = await fetch(`${server!.url}/v1/captures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: sixtyMiB,
    })
    expect(capture.status).toBe(413)
    expect(await capture.json()).toEqual({ _tag: 'PayloadTooLargeError', message: expect.any(String) })
    const imported = await fetch(`${server!.url}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: sixtyMiB,
    })
    expect(imported.status).toBe(400)
    expect(await imported.json()).toEqual({
      _tag: 'ImportFormatError',
      message: 'the file is over the 50 MiB limit of an import',
    })
  })

  test('a streamed gigabyte is refused at the cap with its typed 413, and the server goes on', async () => {
    let sent = 0
    const gigabyte = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024 * 1024 * 1024) return controller.close()
        sent += 1024 * 1024
        controller.enqueue(new Uint8Array(1024 * 1024).fill(97))
      },
    })
    const reply = await fetch(`${server!.url}/v1/captures`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: gigabyte,
      duplex: 'half',
    } as RequestInit)
    expect(reply.status).toBe(413)
    expect((await reply.json())._tag).toBe('PayloadTooLargeError')
    expect(sent).toBeLessThan(1024 * 1024 * 1024)
    expect((await call('GET', '/health')).status).toBe(200)
  })
})

describe('bun server.ts admin commands', () => {
  test('bad arguments exit 2 with one line on stderr and nothing on stdout', async () => {
    for (const args of [
      ['user', 'create', '--email', 'x@example.com'],
      ['user', 'create', '--email', 'not-an-email', '--password', 'long enough'],
      ['key', 'create', '--email', email, '--scopes', 'nope', '--label', 'x'],
    ]) {
      const result = await runServerCommand(args, env)
      expect(result.code).toBe(2)
      expect(result.stdout).toEqual([])
      expect(result.stderr.length).toBe(1)
      expect(result.stderr[0]).toMatch(/^error: /)
    }
  }, 15_000)

  test('export into a pipe closed early (| head) ends quietly with status 0, no stack trace', async () => {
    // docs/operations.md#admin-cli. A library large enough to take many writes.
    const file = join(dir, 'urls.txt')
    writeFileSync(file, Array.from({ length: 3000 }, (_, i) => `https://pipe.example/${i}`).join('\n'))
    expect((await runServerCommand(['import', '--email', email, '--file', file], env)).code).toBe(0)
    const proc = Bun.spawn([BUN, 'server.ts', 'export', '--email', email, '--format', 'json'], {
      cwd: ROOT,
      env: childEnv(env),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = proc.stdout.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value).startsWith('{')).toBe(true)
    await reader.cancel()
    const stderr = await new Response(proc.stderr).text()
    expect({ code: await proc.exited, stderr }).toEqual({ code: 0, stderr: '' })
  })

  test('help lists the commands and exits 0', async () => {
    const result = await runServerCommand(['help'], env)
    expect(result.code).toBe(0)
    expect(result.stdout.join('\n')).toContain('user create --email E --password P')
    expect(result.stdout.join('\n')).toContain('key create --email E --scopes s1,s2 --label L')
  })
})
