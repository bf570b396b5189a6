import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, test } from 'bun:test'
import { lookup as dnsLookup } from 'node:dns/promises'
import {
  FetchFailedError,
  FetchRefusedError,
  MAX_PAGE_BYTES,
  guardedFetch,
  type GuardedFetchOptions,
} from '../../adapters/enrichment/guarded-fetch.ts'

const USER_AGENT = 'ReadlaterTest/1.0 (+https://readlater.example)'
const PUBLIC_IP = '93.184.216.34'
const HTML = '<!doctype html><html><head><title>Hello</title></head><body>Hi</body></html>'

interface SeenRequest {
  path: string
  method: string
  headers: Headers
}
interface TestServer {
  port: number
  origin: string
  seen: SeenRequest[]
  paths(): string[]
}

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** A local server that records every request it receives. */
function serve(
  handler: (request: Request, url: URL) => Response | Promise<Response>,
  hostname = '127.0.0.1',
): TestServer {
  const seen: SeenRequest[] = []
  const server = Bun.serve({
    hostname,
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      seen.push({ path: url.pathname + url.search, method: request.method, headers: request.headers })
      return handler(request, url)
    },
  })
  cleanups.push(() => void server.stop(true))
  const host = hostname.includes(':') ? `[${hostname}]` : hostname
  return {
    port: server.port ?? 0,
    origin: `http://${host}:${server.port}`,
    seen,
    paths: () => seen.map((request) => request.path),
  }
}

const html = (body: string = HTML, status = 200): Response =>
  new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } })

const redirect = (location: string, status = 302): Response => new Response(null, { status, headers: { location } })

/** Routes every address to `server` over loopback, keeping path and Host, and records the addresses asked for. */
function routeTo(server: TestServer): {
  fetchAddress: NonNullable<GuardedFetchOptions['fetchAddress']>
  addresses: string[]
} {
  const addresses: string[] = []
  return {
    addresses,
    fetchAddress: (url, address, init) => {
      addresses.push(address)
      const headers = new Headers(init.headers)
      headers.set('host', url.host)
      return fetch(`${server.origin}${url.pathname}${url.search}`, { ...init, headers })
    },
  }
}

/** `news.example` is public; `intranet.example` is private; other names go to real DNS. */
async function fakeDns(hostname: string): Promise<string[]> {
  if (hostname === 'news.example') return [PUBLIC_IP]
  if (hostname === 'intranet.example') return ['10.0.0.5']
  const answers = await dnsLookup(hostname, { all: true, verbatim: true })
  return answers.map((answer) => answer.address)
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the fetch to fail')
}

async function expectRefused(
  promise: Promise<unknown>,
  reason: FetchRefusedError['reason'],
): Promise<FetchRefusedError> {
  const error = await failure(promise)
  expect(error).toBeInstanceOf(FetchRefusedError)
  expect((error as FetchRefusedError).reason).toBe(reason)
  return error as FetchRefusedError
}

async function expectFailed(promise: Promise<unknown>, reason: FetchFailedError['reason']): Promise<FetchFailedError> {
  const error = await failure(promise)
  expect(error).toBeInstanceOf(FetchFailedError)
  expect((error as FetchFailedError).reason).toBe(reason)
  return error as FetchFailedError
}

const guarded = (extra: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions => ({
  allowPrivate: false,
  userAgent: USER_AGENT,
  ...extra,
})
const open = (extra: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions => ({
  allowPrivate: true,
  userAgent: USER_AGENT,
  ...extra,
})

describe('guardedFetch with the guard on', () => {
  test('refuses local targets on other ports without sending a request', async () => {
    const v4 = serve(() => html())
    const v6 = serve(() => html(), '::1')
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      `http://localhost:${v4.port}/`,
      `http://2130706433:${v4.port}/`,
      `http://0x7f.1:${v4.port}/`,
      `http://[::ffff:127.0.0.1]:${v4.port}/`,
      `http://[::1]:${v6.port}/`,
    ]
    for (const url of urls) await expectRefused(guardedFetch(url, guarded()), 'port')
    expect(v4.seen).toHaveLength(0)
    expect(v6.seen).toHaveLength(0)
  })

  test('refuses private, loopback and metadata addresses on port 80/443 before connecting', async () => {
    const server = serve(() => html())
    const route = routeTo(server)
    const urls = [
      'http://127.0.0.1/',
      'http://localhost/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'https://127.0.0.1/',
      'http://127.0.0.1:443/',
      'http://intranet.example/',
    ]
    for (const url of urls) {
      const error = await expectRefused(
        guardedFetch(url, guarded({ lookup: fakeDns, fetchAddress: route.fetchAddress })),
        'address',
      )
      expect(error.message).not.toContain('/latest')
    }
    expect(route.addresses).toEqual([])
    expect(server.seen).toHaveLength(0)
  })

  test('with the default pinned fetch, a loopback target on port 80 is refused by address, not a failed connection', async () => {
    await expectRefused(guardedFetch('http://127.0.0.1/', guarded()), 'address')
    await expectRefused(guardedFetch('http://localhost/', guarded()), 'address')
  })

  test('refuses a name when any one of its addresses is private', async () => {
    const server = serve(() => html())
    const route = routeTo(server)
    const lookup = async (): Promise<string[]> => [PUBLIC_IP, '10.0.0.1']
    await expectRefused(
      guardedFetch('http://news.example/', guarded({ lookup, fetchAddress: route.fetchAddress })),
      'address',
    )
    expect(route.addresses).toEqual([])
    expect(server.seen).toHaveLength(0)
  })

  test('pins the connection to the first checked address and keeps the original host', async () => {
    const server = serve(() => html())
    const route = routeTo(server)
    const lookup = async (): Promise<string[]> => [PUBLIC_IP, '1.1.1.1']
    const page = await guardedFetch('https://news.example/a?b=1', guarded({ lookup, fetchAddress: route.fetchAddress }))
    expect(page.finalUrl).toBe('https://news.example/a?b=1')
    expect(route.addresses).toEqual([PUBLIC_IP])
    expect(server.seen[0]?.path).toBe('/a?b=1')
    expect(server.seen[0]?.headers.get('host')).toBe('news.example')
  })

  test('allows an explicit port 443 and refuses other ports on public hosts without connecting', async () => {
    const server = serve(() => html())
    const route = routeTo(server)
    const page = await guardedFetch(
      'https://news.example:443/',
      guarded({ lookup: fakeDns, fetchAddress: route.fetchAddress }),
    )
    expect(page.status).toBe(200)
    await expectRefused(
      guardedFetch('http://news.example:8080/', guarded({ lookup: fakeDns, fetchAddress: route.fetchAddress })),
      'port',
    )
    await expectRefused(guardedFetch(`http://${PUBLIC_IP}:22/`, guarded({ fetchAddress: route.fetchAddress })), 'port')
    expect(route.addresses).toEqual([PUBLIC_IP])
  })

  const hops: Array<[string, (port: number) => string, FetchRefusedError['reason']]> = [
    ['127.0.0.1', () => 'http://127.0.0.1/secret', 'address'],
    ['localhost', () => 'http://localhost/secret', 'address'],
    ['[::1]', () => 'http://[::1]/secret', 'address'],
    ['the metadata address', () => 'http://169.254.169.254/secret', 'address'],
    ['a name with a private address', () => 'http://intranet.example/secret', 'address'],
    ['127.0.0.1 on the server port', (port) => `http://127.0.0.1:${port}/secret`, 'port'],
    ['a file: URL', () => 'file:///etc/passwd', 'scheme'],
  ]
  for (const [name, location, reason] of hops) {
    test(`a public URL that redirects to ${name} is refused at the hop`, async () => {
      const server = serve((_, url) => (url.pathname === '/start' ? redirect(location(server.port)) : html('secret')))
      const route = routeTo(server)
      await expectRefused(
        guardedFetch('http://news.example/start', guarded({ lookup: fakeDns, fetchAddress: route.fetchAddress })),
        reason,
      )
      expect(server.paths()).toEqual(['/start'])
      expect(route.addresses).toEqual([PUBLIC_IP])
    })
  }

  test('re-resolves the host on every hop, so a rebinding answer on the second lookup is refused', async () => {
    const server = serve((_, url) => (url.pathname === '/start' ? redirect('/next') : html()))
    const route = routeTo(server)
    const answers = [[PUBLIC_IP], ['127.0.0.1']]
    let calls = 0
    const lookup = async (): Promise<string[]> => answers[calls++] ?? []
    await expectRefused(
      guardedFetch('http://news.example/start', guarded({ lookup, fetchAddress: route.fetchAddress })),
      'address',
    )
    expect(calls).toBe(2)
    expect(server.paths()).toEqual(['/start'])
  })

  test('a DNS failure is transient', async () => {
    const lookup = async (): Promise<string[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' })
    }
    await expectFailed(guardedFetch('http://nowhere.example/', guarded({ lookup })), 'dns')
    await expectFailed(guardedFetch('http://nowhere.example/', guarded({ lookup: async () => [] })), 'dns')
  })
})

describe('guardedFetch with allowPrivate', () => {
  test('returns an HTML page with its final URL', async () => {
    const server = serve(() => html())
    const page = await guardedFetch(`${server.origin}/page?q=1`, open())
    expect(page).toEqual({
      finalUrl: `${server.origin}/page?q=1`,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: new TextEncoder().encode(HTML),
      truncated: false,
      redirects: 0,
      isHtml: true,
    })
  })

  test('sends the user agent and accept headers and no credentials', async () => {
    const server = serve(() => html())
    await guardedFetch(`${server.origin}/`, open())
    const headers = server.seen[0]?.headers
    expect(headers?.get('user-agent')).toBe(USER_AGENT)
    expect(headers?.get('accept')).toBe('text/html,application/xhtml+xml;q=0.9,*/*;q=0.1')
    expect(headers?.get('cookie')).toBeNull()
    expect(headers?.get('authorization')).toBeNull()
    expect(server.seen[0]?.method).toBe('GET')
  })

  test('the default fetch connects to the resolved address and sends the original Host', async () => {
    const server = serve(() => html())
    const lookup = async (hostname: string): Promise<string[]> => (hostname === 'pinned.example' ? ['127.0.0.1'] : [])
    const page = await guardedFetch(`http://pinned.example:${server.port}/page`, open({ lookup }))
    expect(page.finalUrl).toBe(`http://pinned.example:${server.port}/page`)
    expect(server.seen[0]?.headers.get('host')).toBe(`pinned.example:${server.port}`)
    expect(server.paths()).toEqual(['/page'])
  })

  test('the default fetch ignores HTTP_PROXY: a proxy would carry the request unpinned', async () => {
    const proxy = serve(() => html('<html><title>proxy</title></html>'))
    const target = serve(() => html())
    const saved = { upper: process.env.HTTP_PROXY, lower: process.env.http_proxy }
    process.env.HTTP_PROXY = proxy.origin
    process.env.http_proxy = proxy.origin
    try {
      // Plain fetch does take the proxy here, so the test would notice if the guard stopped opting out.
      await (await fetch(`http://pinned.example:${target.port}/plain`)).text()
      expect(proxy.paths()).toEqual(['/plain'])
      const page = await guardedFetch(
        `http://pinned.example:${target.port}/guarded`,
        open({ lookup: async () => ['127.0.0.1'] }),
      )
      expect(new TextDecoder().decode(page.body)).toBe(HTML)
      expect(target.paths()).toEqual(['/guarded'])
      expect(proxy.paths()).toEqual(['/plain'])
    } finally {
      if (saved.upper === undefined) delete process.env.HTTP_PROXY
      else process.env.HTTP_PROXY = saved.upper
      if (saved.lower === undefined) delete process.env.http_proxy
      else process.env.http_proxy = saved.lower
    }
  })

  test('https: the pinned fetch verifies the certificate against the host name, not the IP it connects to', async () => {
    const tls = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8')
    const hosts: string[] = []
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      tls: { cert: tls('server.pem'), key: tls('server-key.pem') },
      fetch(request) {
        hosts.push(request.headers.get('host') ?? '')
        return html()
      },
    })
    cleanups.push(() => void server.stop(true))
    const toLoopback = { lookup: async () => ['127.0.0.1'] }
    const ca = tls('ca.pem')
    const page = await guardedFetch(`https://blog.example.test:${server.port}/post`, open({ ...toLoopback, ca }))
    expect(new TextDecoder().decode(page.body)).toBe(HTML)
    expect(hosts).toEqual([`blog.example.test:${server.port}`])
    // Same address, a name the certificate does not carry: refused by TLS, nothing served.
    await expect(
      guardedFetch(`https://other.example.test:${server.port}/post`, open({ ...toLoopback, ca })),
    ).rejects.toMatchObject({ name: 'FetchFailedError', reason: 'network' })
    // Without the test CA the certificate is not trusted.
    await expect(guardedFetch(`https://blog.example.test:${server.port}/post`, open(toLoopback))).rejects.toMatchObject(
      { name: 'FetchFailedError', reason: 'network' },
    )
    expect(hosts).toHaveLength(1)
  })

  test('the default fetch connects to an IPv6 address in brackets', async () => {
    const server = serve(() => html(), '::1')
    const page = await guardedFetch(`http://v6.example:${server.port}/`, open({ lookup: async () => ['::1'] }))
    expect(page.status).toBe(200)
    expect(server.seen[0]?.headers.get('host')).toBe(`v6.example:${server.port}`)
  })

  function chainServer(): TestServer {
    // /chain/<length>/<n> redirects to /chain/<length>/<n+1> until n reaches length.
    return serve((_, url) => {
      const [, , length, n] = url.pathname.split('/').map(Number)
      return n! < length! ? redirect(`/chain/${length}/${n! + 1}`) : html()
    })
  }

  test('follows 5 redirects to the 6th URL', async () => {
    const server = chainServer()
    const page = await guardedFetch(`${server.origin}/chain/5/0`, open())
    expect(page.finalUrl).toBe(`${server.origin}/chain/5/5`)
    expect(page.redirects).toBe(5)
    expect(server.seen).toHaveLength(6)
  })

  test('refuses the 6th redirect without requesting its target', async () => {
    const server = chainServer()
    await expectRefused(guardedFetch(`${server.origin}/chain/6/0`, open()), 'redirects')
    expect(server.paths()).toEqual([0, 1, 2, 3, 4, 5].map((n) => `/chain/6/${n}`))
  })

  test('honours a lower maxRedirects', async () => {
    const server = chainServer()
    await expectRefused(guardedFetch(`${server.origin}/chain/2/0`, open({ maxRedirects: 1 })), 'redirects')
    expect(server.seen).toHaveLength(2)
  })

  test('resolves a relative Location against the current URL', async () => {
    const server = serve((_, url) => (url.pathname === '/a/b' ? redirect('c?x=1') : html()))
    const page = await guardedFetch(`${server.origin}/a/b`, open())
    expect(page.finalUrl).toBe(`${server.origin}/a/c?x=1`)
    expect(server.paths()).toEqual(['/a/b', '/a/c?x=1'])
  })

  for (const status of [301, 302, 303, 307, 308]) {
    test(`follows ${status} with a GET`, async () => {
      const server = serve((_, url) => (url.pathname === '/from' ? redirect('/to', status) : html()))
      const page = await guardedFetch(`${server.origin}/from`, open())
      expect(page.finalUrl).toBe(`${server.origin}/to`)
      expect(page.redirects).toBe(1)
      expect(server.seen.map((request) => request.method)).toEqual(['GET', 'GET'])
    })
  }

  test('a redirect status without Location is refused', async () => {
    const server = serve(() => new Response(null, { status: 302 }))
    const error = await expectRefused(guardedFetch(`${server.origin}/`, open()), 'status')
    expect(error.status).toBe(302)
  })

  test('cuts a 5 MiB HTML body at 2 MiB', async () => {
    const big = '<html>' + 'a'.repeat(5 * 1024 * 1024)
    const server = serve(() => html(big))
    const page = await guardedFetch(`${server.origin}/big`, open())
    expect(page.body.length).toBe(MAX_PAGE_BYTES)
    expect(page.truncated).toBe(true)
    expect(new TextDecoder().decode(page.body.subarray(0, 7))).toBe('<html>a')
  })

  test('a body of exactly maxBytes is not truncated; one byte more is', async () => {
    const server = serve((_, url) => html('x'.repeat(Number(url.searchParams.get('n')))))
    const exact = await guardedFetch(`${server.origin}/?n=1000`, open({ maxBytes: 1000 }))
    expect(exact.body.length).toBe(1000)
    expect(exact.truncated).toBe(false)
    const over = await guardedFetch(`${server.origin}/?n=1001`, open({ maxBytes: 1000 }))
    expect(over.body.length).toBe(1000)
    expect(over.truncated).toBe(true)
  })

  test('does not read a PDF', async () => {
    const server = serve(() => new Response('%PDF-1.7 not html', { headers: { 'content-type': 'application/pdf' } }))
    const page = await guardedFetch(`${server.origin}/doc.pdf`, open())
    expect(page.isHtml).toBe(false)
    expect(page.body.length).toBe(0)
    expect(page.contentType).toBe('application/pdf')
    expect(page.status).toBe(200)
  })

  test('bodyTypes: a JSON fetch (client metadata documents) reads JSON with its Accept header and leaves HTML unread', async () => {
    const document = '{"client_id":"x"}'
    const server = serve((_, url) =>
      url.pathname === '/client.json'
        ? new Response(document, { headers: { 'content-type': 'application/json; charset=utf-8' } })
        : html(),
    )
    const json = open({ bodyTypes: new Set(['application/json']), accept: 'application/json' })
    const page = await guardedFetch(`${server.origin}/client.json`, json)
    expect(page.isHtml).toBe(false)
    expect(new TextDecoder().decode(page.body)).toBe(document)
    expect(server.seen[0]!.headers.get('accept')).toBe('application/json')
    const notJson = await guardedFetch(`${server.origin}/page`, json)
    expect(notJson.body.length).toBe(0)
    expect(notJson.contentType).toStartWith('text/html')
  })

  test('reads application/xhtml+xml as HTML', async () => {
    const server = serve(() => new Response(HTML, { headers: { 'content-type': 'application/xhtml+xml' } }))
    const page = await guardedFetch(`${server.origin}/`, open())
    expect(page.isHtml).toBe(true)
    expect(new TextDecoder().decode(page.body)).toBe(HTML)
  })

  test('without Content-Type, reads the body only when it opens like HTML', async () => {
    // Bun.serve always adds a Content-Type, so this answers from a raw socket.
    const listener = Bun.listen({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        data(socket, data) {
          const body = data.toString().startsWith('GET /html ') ? `\uFEFF  ${HTML}` : '\u0000\u0001binary'
          const bytes = new TextEncoder().encode(body)
          socket.end(`HTTP/1.1 200 OK\r\ncontent-length: ${bytes.length}\r\nconnection: close\r\n\r\n${body}`)
        },
      },
    })
    cleanups.push(() => listener.stop(true))
    const origin = `http://127.0.0.1:${listener.port}`
    const page = await guardedFetch(`${origin}/html`, open())
    expect(page.contentType).toBeNull()
    expect(page.isHtml).toBe(true)
    expect(new TextDecoder().decode(page.body)).toContain('<title>Hello</title>')
    const binary = await guardedFetch(`${origin}/binary`, open())
    expect(binary.isHtml).toBe(false)
    expect(binary.body.length).toBe(0)
  })

  test('times out when the headers are late', async () => {
    const server = serve(async () => {
      await Bun.sleep(3000)
      return html()
    })
    await expectFailed(guardedFetch(`${server.origin}/slow`, open({ timeoutMs: 500 })), 'timeout')
  })

  test('times out when the body trickles', async () => {
    const server = serve(() => {
      const chunk = new TextEncoder().encode('<p>drip</p>')
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await Bun.sleep(100)
          controller.enqueue(chunk)
        },
      })
      return new Response(body, { headers: { 'content-type': 'text/html' } })
    })
    await expectFailed(guardedFetch(`${server.origin}/trickle`, open({ timeoutMs: 500 })), 'timeout')
  })

  test('the timeout covers DNS', async () => {
    const lookup = (): Promise<string[]> => new Promise(() => undefined)
    await expectFailed(guardedFetch('http://stuck.example/', open({ lookup, timeoutMs: 200 })), 'timeout')
  })

  const statuses: Array<[number, 'failed' | 'refused']> = [
    [500, 'failed'],
    [503, 'failed'],
    [408, 'failed'],
    [429, 'failed'],
    [404, 'refused'],
    [403, 'refused'],
    [410, 'refused'],
  ]
  for (const [status, kind] of statuses) {
    test(`HTTP ${status} is ${kind === 'failed' ? 'transient' : 'permanent'}`, async () => {
      const server = serve(() => html('<p>error page</p>', status))
      const promise = guardedFetch(`${server.origin}/`, open())
      const error = kind === 'failed' ? await expectFailed(promise, 'status') : await expectRefused(promise, 'status')
      expect(error.status).toBe(status)
      expect(error.message).not.toContain('error page')
    })
  }

  test('refuses other schemes and credentials before any request', async () => {
    const server = serve(() => html())
    await expectRefused(guardedFetch(`ftp://127.0.0.1:${server.port}/`, open()), 'scheme')
    await expectRefused(guardedFetch('file:///etc/passwd', open()), 'scheme')
    await expectRefused(guardedFetch('not a url', open()), 'scheme')
    await expectRefused(guardedFetch(`http://user:pass@127.0.0.1:${server.port}/`, open()), 'credentials')
    await expectRefused(guardedFetch(`http://user@127.0.0.1:${server.port}/`, open()), 'credentials')
    expect(server.seen).toHaveLength(0)
  })

  test('a refused connection is a transient network failure', async () => {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => html() })
    const port = server.port
    await server.stop(true)
    await expectFailed(guardedFetch(`http://127.0.0.1:${port}/`, open()), 'network')
  })
})
