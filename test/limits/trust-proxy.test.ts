import { describe, expect, test } from 'bun:test'
import { effectiveClientIp } from '../../adapters/http/limits.ts'
import { createHarness } from '../helpers/harness.ts'

const exchange = { client: 'raycast', code: 'x'.repeat(43), codeVerifier: 'y'.repeat(43) }

describe('per-IP limits behind a reverse proxy', () => {
  test('effectiveClientIp() ignores X-Forwarded-For unless TRUST_PROXY is on, then takes the last hop', () => {
    const request = new Request('http://localhost/', { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' } })
    expect(effectiveClientIp(request, '10.0.0.1', false)).toBe('10.0.0.1')
    expect(effectiveClientIp(request, '10.0.0.1', true)).toBe('198.51.100.7')
    expect(effectiveClientIp(new Request('http://localhost/'), '10.0.0.1', true)).toBe('10.0.0.1')
  })

  test('without TRUST_PROXY, clients behind one proxy share its bucket whatever they claim', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '2' } })
    const statuses: number[] = []
    for (const forwarded of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      statuses.push(
        (
          await h.call('POST', '/connect/exchange', {
            body: exchange,
            ip: '10.0.0.1',
            headers: { 'x-forwarded-for': forwarded },
          })
        ).status,
      )
    }
    expect(statuses).toEqual([400, 400, 429])
  })

  test('with TRUST_PROXY=1, each forwarded client gets its own bucket', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1', TRUST_PROXY: '1' } })
    const first = await h.call('POST', '/connect/exchange', {
      body: exchange,
      ip: '10.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.1' },
    })
    const second = await h.call('POST', '/connect/exchange', {
      body: exchange,
      ip: '10.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.2' },
    })
    const again = await h.call('POST', '/connect/exchange', {
      body: exchange,
      ip: '10.0.0.1',
      headers: { 'x-forwarded-for': 'forged, 203.0.113.1' },
    })
    expect([first.status, second.status, again.status]).toEqual([400, 400, 429])
    expect(first.body).toEqual({ _tag: 'ConnectError', message: expect.any(String), code: 'invalid_code' })
  })
})
