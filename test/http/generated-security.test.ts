import { beforeAll, describe, expect, test } from 'bun:test'
import { SCOPES, type Scope } from '../../core/types.ts'
import { createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import { send } from '../oauth/oauth-helpers.ts'
import { seedPerson, type RouteIds } from './routes.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'
import { hostileBodies, hostileHeaders, MALFORMED_CREDENTIALS, type Attempt } from './generated-security/attacks.ts'
import { operationsOf, type Operation } from './generated-security/operations.ts'

// Unkey-style security tests generated from our own /openapi.json: every documented operation (so a route
// added later is covered without touching this file) is tried without a credential, with malformed ones,
// with another person's ids, without each scope it needs, and with hostile bodies, headers and cookies.
// Each answer must be the typed error the docs promise (docs/api.md#errors), never a 5xx, and a refused
// request must write nothing anywhere (row counts of every table).

let h: Harness
let operations: Operation[]
let a: { key: string; ids: RouteIds }
let b: { key: string; ids: RouteIds }
/** Keys of person A, each holding every scope but one. */
const without = new Map<Scope, string>()

/** A valid body per operation (method + path template); an operation with a body and no row here fails. */
const SAMPLE_BODIES: Record<string, (ids: RouteIds) => unknown> = {
  'POST /v1/captures': () => ({ url: 'https://example.org/generated', tags: ['security'], sourceName: 'generated' }),
  'POST /v1/saved-items/{id}/read-state': () => ({ isRead: true }),
  'PUT /v1/saved-items/{id}/folder': (ids) => ({ folderId: ids.folderId }),
  'PUT /v1/saved-items/{id}/progress': () => ({ progress: 0.5 }),
  'POST /v1/folders': () => ({ name: 'Generated folder' }),
  'PATCH /v1/folders/{id}': () => ({ name: 'Generated rename' }),
  'POST /v1/webhooks': () => ({ url: 'https://hooks.example.invalid/generated', events: ['saved_item.created'] }),
  'POST /connect/authorize': () => authorizeBody(),
  'POST /connect/exchange': () => ({ client: 'raycast', code: 'no-such-code', codeVerifier: 'v'.repeat(43) }),
}

/** What another person's id in the path gets, by the resource the path names. */
function foreignAnswer(op: Operation): { status: number; tag?: string } | null {
  if (!op.path.includes('{id}')) return null
  if (op.path.startsWith('/v1/saved-items/'))
    return op.method === 'DELETE' ? { status: 204 } : { status: 404, tag: 'SavedItemNotFoundError' }
  if (op.path.startsWith('/v1/folders/')) return { status: 404, tag: 'FolderNotFoundError' }
  if (op.path.startsWith('/v1/imports/')) return { status: 404, tag: 'ImportNotFoundError' }
  if (op.path.startsWith('/v1/webhooks/')) return { status: 404, tag: 'WebhookNotFoundError' }
  throw new Error(`no rule for another person's id in ${op.method} ${op.path}: add one`)
}

function pathFor(op: Operation, ids: RouteIds): string {
  const id = op.path.startsWith('/v1/folders/')
    ? ids.folderId
    : op.path.startsWith('/v1/imports/')
      ? ids.importId
      : op.path.startsWith('/v1/webhooks/')
        ? ids.webhookId
        : ids.itemId
  return op.path.replace('{id}', id)
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
  a = { key: keyA, ids: await seedPerson(h, keyA, 'gen-a') }
  b = { key: keyB, ids: await seedPerson(h, keyB, 'gen-b') }
  for (const scope of SCOPES) without.set(scope, await personA.key(SCOPES.filter((s) => s !== scope)))
})

describe('the generated table', () => {
  test('covers every operation of /openapi.json, and each operation with a body has a sample', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16)
    const missing = operations
      .filter((op) => op.jsonBody && !SAMPLE_BODIES[`${op.method} ${op.path}`])
      .map((op) => `${op.method} ${op.path}`)
    expect(missing).toEqual([])
  })
})

describe('every operation of /openapi.json', () => {
  test('without a credential: 401 Unauthorized with the resource-metadata challenge (public ones answer as usual)', async () => {
    for (const op of operations) {
      const body = SAMPLE_BODIES[`${op.method} ${op.path}`]?.(a.ids)
      const tryIt: Attempt = {
        name: 'no credential',
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      }
      if (op.public) {
        await expectSafe(op, pathFor(op, a.ids), tryIt)
        continue
      }
      const reply = await expectSafe(op, pathFor(op, a.ids), tryIt, { status: 401, tag: 'Unauthorized' })
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+"$/)
    }
  })

  test('with a malformed credential: 401 invalid_token', async () => {
    for (const op of operations.filter((each) => !each.public)) {
      for (const credential of MALFORMED_CREDENTIALS) {
        const reply = await expectSafe(op, pathFor(op, a.ids), credential, { status: 401, tag: 'Unauthorized' })
        expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"')
      }
    }
  })

  test("with another person's ids: the documented not-found answer, never 403, nothing changed", async () => {
    for (const op of operations.filter((each) => !each.public)) {
      const answer = foreignAnswer(op)
      if (!answer) continue
      const body = SAMPLE_BODIES[`${op.method} ${op.path}`]?.(a.ids)
      await expectSafe(
        op,
        pathFor(op, b.ids),
        {
          name: "another person's id",
          token: a.key,
          body: body === undefined ? undefined : JSON.stringify(body),
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
        },
        answer,
      )
    }
    // B's folder named in A's own item: the folder is another person's, so it does not exist.
    const move = operations.find((op) => op.path === '/v1/saved-items/{id}/folder')!
    await expectSafe(
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
  })

  test('without each scope it needs: 403 InsufficientScopeError with the insufficient_scope challenge, nothing written', async () => {
    for (const op of operations.filter((each) => each.scopes.length > 0)) {
      for (const scope of op.scopes) {
        const body = SAMPLE_BODIES[`${op.method} ${op.path}`]?.(a.ids)
        const reply = await expectSafe(
          op,
          pathFor(op, a.ids),
          {
            name: `without ${scope}`,
            token: without.get(scope as Scope)!,
            body: body === undefined ? undefined : JSON.stringify(body),
            headers: body === undefined ? {} : { 'content-type': 'application/json' },
          },
          { status: 403, tag: 'InsufficientScopeError' },
        )
        expect(reply.body.requiredScope).toBe(scope)
        // The challenge names every scope the operation needs (one, or all of an import's), so one
        // re-authorization is enough.
        const challenge = /error="insufficient_scope", scope="([^"]*)"/.exec(
          reply.headers.get('www-authenticate') ?? '',
        )
        expect(challenge?.[1]?.split(' ')).toEqual(op.scopes)
      }
    }
  })

  test('with hostile bodies: a typed 4xx (deep nesting, wrong types, extra fields, malformed JSON), never a 5xx', async () => {
    for (const op of operations.filter((each) => each.jsonBody)) {
      const sample = SAMPLE_BODIES[`${op.method} ${op.path}`]!(a.ids) as Record<string, unknown>
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
      const body = SAMPLE_BODIES[`${op.method} ${op.path}`]?.(a.ids)
      for (const hostile of hostileHeaders(op)) {
        await expectSafe(
          op,
          pathFor(op, a.ids),
          {
            ...hostile,
            token: hostile.authorization === undefined && !op.public ? a.key : undefined,
            body: body === undefined ? undefined : JSON.stringify(body),
            headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...hostile.headers },
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
