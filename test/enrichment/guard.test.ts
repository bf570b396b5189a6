import { afterEach, expect, test } from 'bun:test'
import { lookup as dnsLookup } from 'node:dns/promises'
import type { GuardedFetchOptions } from '../../adapters/enrichment/guarded-fetch.ts'
import {
  capture,
  cleanUp,
  fetcher,
  htmlPage,
  jobRow,
  redirectTo,
  restItems,
  setup,
  sorted,
  startWorkers,
  waitFor,
  waitForLogs,
} from './enrichment-helpers.ts'

// The address guard as deployed (allowPrivate false, docs/enrichment.md): captures of loopback, private,
// link-local, metadata and IPv4-mapped targets, of names resolving to loopback, and of a public page that
// redirects to loopback all end `failed` after one attempt, and the only request that reaches the local
// fixture server is the public-looking first hop. Log lines give the host and the reason, never the path.

afterEach(cleanUp)

const PUBLIC_IP = '93.184.216.34'

test('every private target fails after one attempt; nothing but the public first hop is requested; logs keep paths out', async () => {
  const s = await setup()
  const port = s.fixtures.port
  s.fixtures.route('/', () => htmlPage('<title>Local admin</title>'))
  s.fixtures.route('/secret', () => htmlPage('<title>Secret</title>'))
  s.fixtures.route('/start', (_request, url) =>
    redirectTo(
      url.searchParams.get('to') === 'port'
        ? `http://127.0.0.1:${port}/secret?key=k3y`
        : 'http://127.0.0.1/secret?key=k3y',
    ),
  )

  // news.example is a public name; every other address goes out as it would in production, so a guard
  // that let one through would show up in `leaked` (and, for the fixture port, in the server's requests).
  const leaked: string[] = []
  const lookup = async (hostname: string): Promise<string[]> => {
    if (hostname === 'news.example') return [PUBLIC_IP]
    return (await dnsLookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address)
  }
  const fetchAddress: NonNullable<GuardedFetchOptions['fetchAddress']> = (url, address, init) => {
    if (address === PUBLIC_IP) {
      const headers = new Headers(init.headers)
      headers.set('host', url.host)
      return fetch(`${s.fixtures.origin}${url.pathname}${url.search}`, { ...init, headers })
    }
    leaked.push(`${address} ${url.href}`)
    return fetch(url, init)
  }

  const targets: readonly [url: string, reason: string][] = [
    [`http://127.0.0.1:${port}/`, `Refused 127.0.0.1: port ${port} is not 80 or 443`],
    ['http://127.0.0.1/', 'Refused 127.0.0.1: not a public address (loopback)'],
    ['http://[::1]/', 'Refused [::1]: not a public address (loopback)'],
    ['http://10.0.0.1/admin?token=t0ken', 'Refused 10.0.0.1: not a public address (private)'],
    ['http://169.254.169.254/latest/meta-data/', 'Refused 169.254.169.254: not a public address (cloudMetadata)'],
    ['http://[::ffff:127.0.0.1]/', 'Refused [::ffff:7f00:1]: not a public address (ipv4Mapped:loopback)'],
    [`http://localhost:${port}/`, `Refused localhost: port ${port} is not 80 or 443`],
    ['http://localhost/', 'Refused localhost: not a public address (loopback)'],
    ['http://news.example/start?to=plain&session=s3ss10n', 'Refused 127.0.0.1: not a public address (loopback)'],
    ['http://news.example/start?to=port&session=s3ss10n', `Refused 127.0.0.1: port ${port} is not 80 or 443`],
  ]
  const ids: string[] = []
  for (const [url] of targets) ids.push((await capture(s.h, s.key, url)).id)
  startWorkers(s, fetcher({ allowPrivate: false, lookup, fetchAddress }))

  await waitFor('every item failed', async () => {
    const items = await restItems(s.h, s.key)
    return items.every((item) => item.enrichmentStatus === 'failed') ? items : null
  })
  for (const [index, [url, reason]] of targets.entries()) {
    const id = ids[index]!
    expect(await jobRow(s.h.db, id)).toBeNull()
    const lines = await waitForLogs(s.h, id, 1)
    expect({ url, lines }).toEqual({
      url,
      lines: [
        expect.objectContaining({
          level: 'warn',
          outcome: 'failed',
          attempts: 1,
          reason: `FetchRefusedError: ${reason}`,
        }),
      ],
    })
  }

  expect(leaked).toEqual([])
  expect(sorted(s.fixtures.requests)).toEqual(['/start?to=plain&session=s3ss10n', '/start?to=port&session=s3ss10n'])
  const written = JSON.stringify(s.h.logs)
  for (const secret of ['/secret', 'k3y', '/start', 's3ss10n', '/admin', 't0ken', '/latest', 'meta-data'])
    expect(written).not.toContain(secret)
})

test('a failed guard check is not retried: the clock moving on brings no second attempt', async () => {
  const s = await setup()
  const captured = await capture(s.h, s.key, 'http://127.0.0.1/')
  const workers = startWorkers(s, fetcher({ allowPrivate: false }))
  await waitForLogs(s.h, captured.id, 1)
  s.h.clock.advance(60_000)
  // A later item is fetched (and refused) after the clock moved; the first still has its one attempt.
  const later = await capture(s.h, s.key, 'http://[::1]/')
  await waitForLogs(s.h, later.id, 1)
  await workers.stop()
  expect((await restItems(s.h, s.key)).map((item) => item.enrichmentStatus)).toEqual(['failed', 'failed'])
  expect(s.h.logs.filter((line) => line.itemId === captured.id)).toHaveLength(1)
})
