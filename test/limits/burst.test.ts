import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calculatePkceS256Challenge } from '../../core/oauth/pkce.ts'
import { createHarness, type Harness, type Reply } from '../helpers/harness.ts'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'

// Issue 3 "Show": sign-in, token and exchange keep answering under a burst. Each endpoint has its own
// per-IP bucket of IP_RATE_LIMIT_MAX per minute (docs/api.md#rate-limits): under 60 concurrent requests from two
// addresses, each address gets exactly that many answers, the rest are 429 with Retry-After, and nothing
// is ever a 5xx. The counter lives in the database, so this also shows it is exact under concurrency.

const LIMIT = 5
let signIns = 0
const BURST = 60
const IPS = ['203.0.113.10', '198.51.100.20']
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'

interface Endpoint {
  name: string
  path: string
  /** Headers and body of one request of the burst. */
  request(): { headers: Record<string, string>; raw: string }
  /** What an admitted request of the burst gets (each is hopeless: unknown code, client or account). */
  answered(reply: Reply): void
  /** What a 429 looks like in this endpoint's style. */
  refusal(reply: Reply): void
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  raw: new URLSearchParams(fields).toString(),
})

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /connect/exchange',
    path: '/connect/exchange',
    request: () => ({
      headers: { 'content-type': 'application/json' },
      raw: JSON.stringify({ client: 'raycast', code: 'no-such-code', codeVerifier: VERIFIER }),
    }),
    answered: (reply) =>
      expect({ status: reply.status, code: reply.body?.code }).toEqual({ status: 400, code: 'invalid_code' }),
    refusal: (reply) => expect(reply.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) }),
  },
  {
    name: 'POST /api/auth/oauth2/token',
    path: '/api/auth/oauth2/token',
    request: () =>
      form({
        grant_type: 'authorization_code',
        code: 'no-such-code',
        redirect_uri: 'http://127.0.0.1:8123/cb',
        client_id: 'no-such-client',
        code_verifier: VERIFIER,
      }),
    answered: (reply) => {
      expect([400, 401]).toContain(reply.status)
      expect(reply.body.error).toMatch(/^invalid_(client|grant|request)$/)
    },
    refusal: (reply) => {
      expect(reply.body).toEqual({ error: expect.any(String), error_description: expect.any(String) })
      expect(reply.headers.get('cache-control')).toBe('no-store')
    },
  },
  {
    name: 'POST /sign-in',
    path: '/sign-in',
    // With a valid double-submit CSRF pair, so each admitted request reaches the password check; each
    // for another email, so the per-account throttle (10 failures) never answers in the IP limit's place.
    request: () => {
      const request = form({
        csrf: 'burst-csrf',
        email: `nobody-${++signIns}@example.com`,
        password: 'not-the-password',
      })
      return { ...request, headers: { ...request.headers, cookie: 'rl_csrf=burst-csrf' } }
    },
    answered: (reply) =>
      expect({ status: reply.status, html: reply.text.includes('<form') }).toEqual({ status: 401, html: true }),
    refusal: (reply) => expect(reply.headers.get('content-type')).toContain('text/html'),
  },
]

function summarize(replies: Reply[]): { fiveHundreds: number[]; passed: number; refused: number } {
  return {
    fiveHundreds: replies.map((reply) => reply.status).filter((status) => status >= 500),
    passed: replies.filter((reply) => reply.status !== 429).length,
    refused: replies.filter((reply) => reply.status === 429).length,
  }
}

function expectRefusals(endpoint: Endpoint, replies: Reply[]): void {
  for (const reply of replies.filter((r) => r.status !== 429)) endpoint.answered(reply)
  for (const reply of replies.filter((r) => r.status === 429)) {
    expect(reply.headers.get('ratelimit-limit')).toBe(String(LIMIT))
    expect(reply.headers.get('ratelimit-remaining')).toBe('0')
    const retryAfter = Number(reply.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    endpoint.refusal(reply)
  }
}

describe(`a burst of ${BURST} concurrent requests from two addresses (IP_RATE_LIMIT_MAX=${LIMIT}), in process`, () => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness({ env: { IP_RATE_LIMIT_MAX: String(LIMIT) } })
  })

  for (const endpoint of ENDPOINTS) {
    test(`${endpoint.name}: exactly ${LIMIT} answers per address, the rest 429 with Retry-After, no 5xx`, async () => {
      const replies = await Promise.all(
        Array.from({ length: BURST }, (_, i) => {
          const ip = IPS[i % IPS.length]!
          return h
            .call('POST', endpoint.path, { ...endpoint.request(), ip, unchecked: true })
            .then((reply) => ({ ip, reply }))
        }),
      )
      for (const ip of IPS) {
        const mine = replies.filter((r) => r.ip === ip).map((r) => r.reply)
        expect({ ip, ...summarize(mine) }).toEqual({
          ip,
          fiveHundreds: [],
          passed: LIMIT,
          refused: BURST / IPS.length - LIMIT,
        })
        expectRefusals(endpoint, mine)
      }
      expect(h.logs.filter((line) => line.level === 'error')).toEqual([])
    })
  }

  test('the buckets are per endpoint: after the bursts above, a third address still has its full allowance everywhere', async () => {
    for (const endpoint of ENDPOINTS) {
      const reply = await h.call('POST', endpoint.path, { ...endpoint.request(), ip: '192.0.2.30', unchecked: true })
      expect({
        endpoint: endpoint.name,
        status: reply.status === 429 ? 429 : 'answered',
        remaining: reply.headers.get('ratelimit-remaining'),
      }).toEqual({ endpoint: endpoint.name, status: 'answered', remaining: String(LIMIT - 1) })
    }
  })
})

describe(`a burst of ${BURST} concurrent exchanges of one real code from one address`, () => {
  test(`${LIMIT} get through, exactly one of them gets the key, the others invalid_code; the rest are 429`, async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: String(LIMIT) } })
    const person = await h.user()
    const token = await person.key()
    const authorize = await h.call('POST', '/connect/authorize', {
      token,
      body: {
        client: 'raycast',
        redirectUri: 'raycast://oauth',
        codeChallenge: calculatePkceS256Challenge(VERIFIER),
        codeChallengeMethod: 'S256',
        scopes: ['saved-items:read'],
        label: 'Burst',
      },
    })
    const body = { client: 'raycast', code: authorize.body.code, codeVerifier: VERIFIER }
    const replies = await Promise.all(
      Array.from({ length: BURST }, () => h.call('POST', '/connect/exchange', { body })),
    )
    const statuses = replies.map((reply) => reply.status)
    expect(statuses.filter((s) => s === 200).length).toBe(1)
    expect(replies.filter((reply) => reply.status === 400).map((reply) => reply.body.code)).toEqual(
      Array(LIMIT - 1).fill('invalid_code'),
    )
    expect(statuses.filter((s) => s === 429).length).toBe(BURST - LIMIT)
    const keys = await h.db.$client.execute({
      sql: 'SELECT count(*) AS n FROM api_keys WHERE connect_client = ?',
      args: ['raycast'],
    })
    expect(Number(keys.rows[0]!.n)).toBe(1)
  })
})

describe(`a burst of ${BURST} concurrent requests over real HTTP (loopback, file database in WAL mode)`, () => {
  let live: LiveServer
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readlater-burst-'))
    live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: String(LIMIT) }, dbUrl: `file:${join(dir, 'burst.db')}` })
  })
  afterAll(async () => {
    await live.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  for (const endpoint of ENDPOINTS) {
    test(`${endpoint.name}: exactly ${LIMIT} answers, ${BURST - LIMIT} × 429, no 5xx`, async () => {
      const replies = await Promise.all(
        Array.from({ length: BURST }, async (): Promise<Reply> => {
          const { headers, raw } = endpoint.request()
          const response = await fetch(live.url + endpoint.path, {
            method: 'POST',
            headers,
            body: raw,
            redirect: 'manual',
          })
          const text = await response.text()
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            body = text
          }
          return { status: response.status, headers: response.headers, body, text }
        }),
      )
      expect(summarize(replies)).toEqual({ fiveHundreds: [], passed: LIMIT, refused: BURST - LIMIT })
      expectRefusals(endpoint, replies)
    })
  }
})
