import { beforeAll, describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { SCOPES, type Scope } from '../../core/types.ts'
import { BASE, createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import { send } from '../oauth/oauth-helpers.ts'
import { endpointOf, type Endpoint, type RouteIds } from './endpoint-table.ts'
import { seedPerson, snapshotPerson } from './people.ts'
import { hostileBodies, hostileHeaders, MALFORMED_CREDENTIALS, type Attempt } from './generated-security/attacks.ts'
import { operationsOf, type Operation } from './generated-security/operations.ts'

// Unkey-style security tests generated from our own /openapi.json: every documented operation (so a route
// added later is covered without touching this file) is tried without a credential, with malformed, unknown
// and revoked ones, with another person's ids, without each scope it needs, with only the scopes it needs,
// and with hostile bodies, headers and cookies. Each answer must be the typed error the docs promise
// (docs/api.md#errors), never a 5xx, and a refused request must write nothing anywhere (row counts of every
// table). Sample paths and bodies, and what an owner and another person get, come from the one endpoint
// table (test/http/endpoint-table.ts); an operation without a row there fails.

const METADATA = `${BASE}/.well-known/oauth-protected-resource`

let h: Harness
let operations: Operation[]
let a: { id: string; key: string; ids: RouteIds }
let b: { id: string; key: string; ids: RouteIds }
/** Keys of person A, each holding every scope but one. */
const without = new Map<Scope, string>()
/** A key of person A's that was revoked. */
let revokedKey: string

/** The endpoint table's row of an operation. */
function rowOf(op: Operation): Endpoint {
  const row = endpointOf(op.method, op.path)
  if (!row) throw new Error(`${op.method} ${op.path} has no row in test/http/endpoint-table.ts: add one`)
  return row
}

const pathFor = (op: Operation, ids: RouteIds): string => rowOf(op).path(ids)

/** The operation's sample body with these ids, as the request's body and headers. */
function sampleOf(op: Operation, ids: RouteIds): Pick<Attempt, 'body' | 'headers'> {
  const body = rowOf(op).body?.(ids)
  return body === undefined
    ? { body: undefined, headers: {} }
    : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
}

/** Row counts of every table (rate-limit counters and the migration log aside). */
async function counts(): Promise<Record<string, number>> {
  const tables = (
    await h.db.$client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('rate_limits', '__drizzle_migrations')",
    )
  ).rows.map((row) => String(row.name))
  const result: Record<string, number> = {}
  for (const table of tables)
    result[table] = Number((await h.db.$client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n)
  return result
}

async function attempt(op: Operation, path: string, tryIt: Attempt): Promise<Reply> {
  const headers: Record<string, string> = { ...tryIt.headers }
  if (tryIt.token !== undefined) headers.authorization = `Bearer ${tryIt.token}`
  if (tryIt.authorization !== undefined) headers.authorization = tryIt.authorization
  return send(h, op.method, path, { headers, body: tryIt.body })
}

/** Runs `tryIt` and checks: no 5xx, a typed body when refused, and nothing written when refused. */
async function expectSafe(
  op: Operation,
  path: string,
  tryIt: Attempt,
  expected?: { status: number | number[]; tag?: string },
): Promise<Reply> {
  const before = await counts()
  const reply = await attempt(op, path, tryIt)
  const label = `${op.method} ${op.path}: ${tryIt.name}`
  expect({ label, status: reply.status < 500 }).toEqual({ label, status: true })
  if (expected) {
    const statuses = [expected.status].flat()
    expect({ label, status: statuses.includes(reply.status) ? 'as documented' : reply.status }).toEqual({
      label,
      status: 'as documented',
    })
    if (expected.tag) expect({ label, tag: reply.body?._tag }).toEqual({ label, tag: expected.tag })
  }
  if (reply.status >= 400) {
    // Refusals carry the typed body of docs/api.md#errors, and leave every table as it was.
    expect({ label, body: typeof reply.body?._tag === 'string' && typeof reply.body?.message === 'string' }).toEqual({
      label,
      body: true,
    })
    expect({ label, rows: await counts() }).toEqual({ label, rows: before })
  }
  return reply
}

beforeAll(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000', ENRICHMENT: 'off' } })
  const spec = await send(h, 'GET', '/openapi.json')
  operations = operationsOf(spec.body)
  const personA = await h.user()
  const personB = await h.user()
  const keyA = await personA.key()
  const keyB = await personB.key()
  a = { id: personA.id, key: keyA, ids: await seedPerson(h, keyA, 'gen-a') }
  b = { id: personB.id, key: keyB, ids: await seedPerson(h, keyB, 'gen-b') }
  for (const scope of SCOPES) without.set(scope, await personA.key(SCOPES.filter((s) => s !== scope)))
  revokedKey = await personA.key()
  await h.db.$client.execute({
    sql: 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?',
    args: [h.clock.now().toISOString(), hashApiKey(revokedKey)],
  })
})

describe('the endpoint table', () => {
  test('has a row for every operation of /openapi.json, with a sample for each JSON body and what a single-scope one answers its owner', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16)
    const name = (op: Operation) => `${op.method} ${op.path}`
    expect(operations.filter((op) => !endpointOf(op.method, op.path)).map(name)).toEqual([])
    expect(operations.filter((op) => op.jsonBody && !rowOf(op).body).map(name)).toEqual([])
    expect(operations.filter((op) => op.scopes.length === 1 && rowOf(op).success === undefined).map(name)).toEqual([])
  })
})

/** Which of a person's ids names a resource. */
const ID_OF = {
  'saved-item': 'itemId',
  folder: 'folderId',
  import: 'importId',
  webhook: 'webhookId',
  highlight: 'highlightId',
} as const

/** A 401 with the typed body and no rate-limit headers (an unauthenticated call counts against nothing). */
function expectUnauthorized(reply: Reply): void {
  expect(reply.body).toEqual({ _tag: 'Unauthorized', message: expect.any(String) })
  expect(reply.body.message.length).toBeGreaterThan(0)
  expect(reply.headers.get('ratelimit-limit')).toBeNull()
}

describe('every operation of /openapi.json', () => {
  test('without a credential: 401 Unauthorized with the bare resource-metadata challenge (public ones answer as usual)', async () => {
    for (const op of operations) {
      const tryIt: Attempt = { name: 'no credential', ...sampleOf(op, a.ids) }
      if (op.public) {
        await expectSafe(op, pathFor(op, a.ids), tryIt)
        continue
      }
      const reply = await expectSafe(op, pathFor(op, a.ids), tryIt, { status: 401, tag: 'Unauthorized' })
      expectUnauthorized(reply)
      expect({ op: op.path, challenge: reply.headers.get('www-authenticate') }).toEqual({
        op: op.path,
        challenge: `Bearer resource_metadata="${METADATA}"`,
      })
    }
  })

  test('with a malformed, unknown, revoked or non-Bearer credential: 401 invalid_token', async () => {
    const credentials: Attempt[] = [
      ...MALFORMED_CREDENTIALS,
      { name: 'a well-formed key that was never issued', token: `rlk_${'A'.repeat(43)}` },
      { name: 'not an API key', token: 'not-an-api-key' },
      { name: 'a real key with a character more', token: `${a.key}x` },
      { name: 'Bearer and nothing', authorization: 'Bearer' },
      { name: 'a revoked key', token: revokedKey },
      { name: 'a real key as Basic', authorization: `Basic ${a.key}` },
    ]
    for (const op of operations.filter((each) => !each.public)) {
      for (const credential of credentials) {
        const attempt = { ...sampleOf(op, a.ids), ...credential }
        const reply = await expectSafe(op, pathFor(op, a.ids), attempt, { status: 401, tag: 'Unauthorized' })
        expectUnauthorized(reply)
        const challenge = reply.headers.get('www-authenticate') ?? ''
        expect(challenge.startsWith('Bearer ')).toBe(true)
        expect(challenge).toContain('error="invalid_token"')
        expect(challenge).toContain(`resource_metadata="${METADATA}"`)
      }
    }
  })

  test("with another person's ids: the documented not-found answer naming the id, never 403, nothing of theirs changed", async () => {
    for (const op of operations.filter((each) => !each.public)) {
      const answer = rowOf(op).foreign
      if (!answer) continue
      const before = await snapshotPerson(h, b.id)
      const reply = await expectSafe(
        op,
        pathFor(op, b.ids),
        { name: "another person's id", token: a.key, ...sampleOf(op, a.ids) },
        answer,
      )
      const label = `${op.method} ${op.path}`
      if (answer.status === 404) {
        const id = b.ids[ID_OF[answer.resource]]
        expect({ label, body: reply.body }).toEqual({
          label,
          body: { _tag: answer.tag, message: expect.any(String), [answer.field]: id },
        })
      } else {
        expect({ label, text: reply.text }).toEqual({ label, text: '' })
      }
      expect({ label, rows: await snapshotPerson(h, b.id) }).toEqual({ label, rows: before })
      const items = await h.call('GET', '/v1/saved-items', { token: b.key })
      expect(items.body.savedItems.map((item: { id: string }) => item.id)).toEqual([b.ids.itemId])
      const hooks = await h.call('GET', '/v1/webhooks', { token: b.key })
      expect(hooks.body.webhooks.map((hook: { id: string }) => hook.id)).toEqual([b.ids.webhookId])
    }
    // B's folder named in A's own item: the folder is another person's, so it does not exist.
    const move = operations.find((op) => op.path === '/v1/saved-items/{id}/folder')!
    const reply = await expectSafe(
      move,
      pathFor(move, a.ids),
      {
        name: "another person's folder in the body",
        token: a.key,
        body: JSON.stringify({ folderId: b.ids.folderId }),
        headers: { 'content-type': 'application/json' },
      },
      { status: 404, tag: 'FolderNotFoundError' },
    )
    expect(reply.body).toEqual({ _tag: 'FolderNotFoundError', message: expect.any(String), folderId: b.ids.folderId })
  })

  test('without each scope it needs: 403 InsufficientScopeError naming it, with the insufficient_scope challenge, nothing written', async () => {
    for (const op of operations.filter((each) => each.scopes.length > 0)) {
      for (const scope of op.scopes) {
        const before = await snapshotPerson(h, a.id)
        const reply = await expectSafe(
          op,
          pathFor(op, a.ids),
          { name: `without ${scope}`, token: without.get(scope as Scope)!, ...sampleOf(op, a.ids) },
          { status: 403, tag: 'InsufficientScopeError' },
        )
        const label = `${op.method} ${op.path} without ${scope}`
        expect({ label, body: reply.body }).toEqual({
          label,
          body: { _tag: 'InsufficientScopeError', message: expect.any(String), requiredScope: scope },
        })
        // The challenge names every scope the operation needs (one, or all of an import's), so one
        // re-authorization is enough.
        expect({ label, challenge: reply.headers.get('www-authenticate') }).toEqual({
          label,
          challenge: `Bearer error="insufficient_scope", scope="${op.scopes.join(' ')}", resource_metadata="${METADATA}"`,
        })
        expect({ label, rows: await snapshotPerson(h, a.id) }).toEqual({ label, rows: before })
      }
    }
  })

  test('with only the scopes it needs: its owner gets the success the endpoint table gives', async () => {
    for (const op of operations.filter((each) => each.scopes.length > 0)) {
      const success = rowOf(op).success
      if (success === undefined) continue
      const user = await h.user()
      const ids = await seedPerson(h, await user.key(), 'only')
      const reply = await send(h, op.method, pathFor(op, ids), {
        headers: {
          authorization: `Bearer ${await user.key(op.scopes as Scope[])}`,
          ...sampleOf(op, ids).headers,
        },
        body: sampleOf(op, ids).body,
      })
      const label = `${op.method} ${op.path}`
      expect({ label, status: reply.status }).toEqual({ label, status: success })
      expect({ label, challenge: reply.headers.get('www-authenticate') }).toEqual({ label, challenge: null })
    }
  })

  test('with hostile bodies: a typed 4xx (deep nesting, wrong types, extra fields, malformed JSON), never a 5xx', async () => {
    for (const op of operations.filter((each) => each.jsonBody)) {
      const sample = rowOf(op).body!(a.ids) as Record<string, unknown>
      for (const hostile of hostileBodies(sample)) {
        const started = performance.now()
        await expectSafe(op, pathFor(op, a.ids), { ...hostile, token: op.public ? undefined : a.key }, hostile.expect)
        if (hostile.fast)
          expect({ op: `${op.method} ${op.path}`, slow: performance.now() - started > 1000 }).toEqual({
            op: `${op.method} ${op.path}`,
            slow: false,
          })
      }
    }
  })

  test('with hostile headers and cookies: never a 5xx', async () => {
    for (const op of operations) {
      const sample = sampleOf(op, a.ids)
      for (const hostile of hostileHeaders(op)) {
        await expectSafe(
          op,
          pathFor(op, a.ids),
          {
            ...hostile,
            token: hostile.authorization === undefined && !op.public ? a.key : undefined,
            body: sample.body,
            headers: { ...sample.headers, ...hostile.headers },
          },
          hostile.expect,
        )
      }
    }
  })
})

describe('the OAuth endpoints outside /openapi.json', () => {
  const endpoints: { path: string; type: string; body: string }[] = [
    {
      path: '/api/auth/oauth2/register',
      type: 'application/json',
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
    },
    {
      path: '/api/auth/oauth2/token',
      type: 'application/x-www-form-urlencoded',
      body: 'grant_type=authorization_code&code=x',
    },
    { path: '/api/auth/oauth2/revoke', type: 'application/x-www-form-urlencoded', body: 'token=x' },
  ]
  test('answer hostile bodies with an RFC 6749 error and write nothing', async () => {
    const hostile = [
      '['.repeat(64 * 1024),
      `{"client_name":"${'x'.repeat(60_000)}"}`,
      '{"redirect_uris":"not a list"}',
      '\u0000\u202e\u200b',
      'not json at all',
      `grant_type=${'%'.repeat(1000)}`,
      '{"client_name":"a","client_name":"b","redirect_uris":["http://127.0.0.1/cb\\u0000"]}',
    ]
    for (const endpoint of endpoints) {
      for (const raw of hostile) {
        const before = await counts()
        const reply = await send(h, 'POST', endpoint.path, {
          headers: { 'content-type': endpoint.type, cookie: 'rl_session=%zz' },
          body: raw,
        })
        const label = `${endpoint.path}: ${raw.slice(0, 30)}`
        expect({ label, status: reply.status < 500 }).toEqual({ label, status: true })
        // Revoking what is not a token of ours answers 200 (RFC 7009 §2.2); every refusal is an RFC 6749 body.
        if (reply.status >= 400) expect({ label, error: typeof reply.body?.error }).toEqual({ label, error: 'string' })
        else
          expect({ label, status: reply.status, endpoint: endpoint.path }).toEqual({
            label,
            status: 200,
            endpoint: '/api/auth/oauth2/revoke',
          })
        expect({ label, rows: await counts() }).toEqual({ label, rows: before })
      }
    }
  })
})
