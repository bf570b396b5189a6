import { beforeEach, describe, expect, test } from 'bun:test'
import { createHarness, type Harness, type Reply, type TestUser } from '../helpers/harness.ts'
import { authorize, codeFor, exchange, RFC7636_CHALLENGE, RFC7636_VERIFIER } from './connect-fixtures.ts'

// docs/api.md#rate-limits: /connect/exchange is limited per client IP (IP_RATE_LIMIT_MAX per minute), every answer
// carries RateLimit-*, and the 429 adds Retry-After and a RateLimitExceeded body.

let h: Harness
let person: TestUser
let token: string

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '3' } })
  person = await h.user()
  token = await person.key()
})

const headersOf = (reply: Reply) => ({
  limit: reply.headers.get('ratelimit-limit'),
  remaining: reply.headers.get('ratelimit-remaining'),
  reset: reply.headers.get('ratelimit-reset'),
  retryAfter: reply.headers.get('retry-after'),
})

describe('POST /connect/exchange per-IP limit', () => {
  test('3 answers count down 2/1/0, whatever their outcome; the 4th is 429 RateLimitExceeded with Retry-After and does not touch the code', async () => {
    h.clock.advance(15_200) // 44.8 s left in the minute: Reset rounds up to 45
    const code = await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE })
    const replies = [
      await exchange(
        h,
        { client: 'chrome-extension', code: 'unknown'.repeat(6), codeVerifier: RFC7636_VERIFIER },
        '203.0.113.7',
      ),
      await exchange(h, { client: 'nope', code, codeVerifier: RFC7636_VERIFIER }, '203.0.113.7'),
      await exchange(h, { client: 'chrome-extension' }, '203.0.113.7'),
    ]
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400])
    expect(replies.map(headersOf)).toEqual([
      { limit: '3', remaining: '2', reset: '45', retryAfter: null },
      { limit: '3', remaining: '1', reset: '45', retryAfter: null },
      { limit: '3', remaining: '0', reset: '45', retryAfter: null },
    ])

    h.clock.advance(5_000)
    const fourth = await exchange(
      h,
      { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER },
      '203.0.113.7',
    )
    expect(fourth.status).toBe(429)
    expect(fourth.body).toEqual({ _tag: 'RateLimitExceeded', message: expect.any(String) })
    expect(headersOf(fourth)).toEqual({ limit: '3', remaining: '0', reset: '40', retryAfter: '40' })

    // Another IP has its own bucket, and the refused request did not spend the code.
    const elsewhere = await exchange(
      h,
      { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER },
      '198.51.100.9',
    )
    expect(elsewhere.status).toBe(200)
    expect(headersOf(elsewhere)).toMatchObject({ limit: '3', remaining: '2' })
  })

  test('three successful exchanges pass, the fourth is refused; the next minute starts over', async () => {
    const codes = []
    for (let i = 0; i < 4; i++) codes.push(await codeFor(h, token, { codeChallenge: RFC7636_CHALLENGE }))
    const replies = []
    for (const code of codes)
      replies.push(await exchange(h, { client: 'chrome-extension', code, codeVerifier: RFC7636_VERIFIER }))
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 429])
    expect(replies.map((reply) => reply.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0'])
    expect(replies[3]!.headers.get('retry-after')).toBe('60')

    h.clock.advance(60_000)
    const again = await exchange(h, { client: 'chrome-extension', code: codes[3]!, codeVerifier: RFC7636_VERIFIER })
    expect(again.status).toBe(200)
    expect(again.headers.get('ratelimit-remaining')).toBe('2')
  })

  test('authorize is limited per credential (RATE_LIMIT_MAX), not by the per-IP exchange bucket', async () => {
    for (let i = 0; i < 3; i++) await exchange(h, { client: 'chrome-extension', code: 'x', codeVerifier: 'y' })
    expect((await exchange(h, { client: 'chrome-extension', code: 'x', codeVerifier: 'y' })).status).toBe(429)
    const reply = await authorize(h, token)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('ratelimit-limit')).toBe('600')
  })
})
