import { lookup as dnsLookup } from 'node:dns/promises'
import { PAGE_MAX_BYTES } from '../../core/reading/page-limits.ts'
import type { FetchedPage } from '../app/deps.ts'
import { describeAddressRange, isPublicAddress } from './address-policy.ts'

export type { FetchedPage }

export const FETCH_TIMEOUT_MS = 10_000
export const MAX_PAGE_BYTES = PAGE_MAX_BYTES
export const MAX_REDIRECTS = 5

type RefusedReason = 'scheme' | 'credentials' | 'port' | 'address' | 'redirects' | 'status'
type FailedReason = 'network' | 'dns' | 'timeout' | 'status'

/** A fetch that did not yield a page: why, and the HTTP status when one was answered. */
abstract class GuardedFetchError<Reason extends string> extends Error {
  readonly reason: Reason
  readonly status?: number
  constructor(reason: Reason, message: string, status?: number) {
    super(message)
    this.reason = reason
    if (status !== undefined) this.status = status
  }
}

/** Permanent: retrying cannot help (bad scheme, blocked address, too many redirects, credentials in URL, port not allowed, 4xx other than 408/429). */
export class FetchRefusedError extends GuardedFetchError<RefusedReason> {
  override readonly name = 'FetchRefusedError'
}

/** Transient: network error, DNS failure, timeout, 5xx, 408, 429. */
export class FetchFailedError extends GuardedFetchError<FailedReason> {
  override readonly name = 'FetchFailedError'
}

export interface GuardedFetchOptions {
  /** ENRICH_ALLOW_PRIVATE=1: skip the address check and the port rule (tests only). */
  allowPrivate: boolean
  userAgent: string
  timeoutMs?: number
  maxBytes?: number
  maxRedirects?: number
  /** DNS: all addresses of a host name. Default: node:dns/promises lookup(host, { all: true, verbatim: true }). Injected by tests. */
  lookup?: (hostname: string) => Promise<string[]>
  /** Opens the HTTP exchange to one checked address for `url` (redirect: 'manual'). Default: pinned fetch. Injected by tests to route a "public" address to a local server. */
  fetchAddress?: (url: URL, address: string, init: RequestInit) => Promise<Response>
  /** Media types whose bodies are read; others are cancelled unread. Default: HTML (and, with no Content-Type, what looks like HTML). */
  bodyTypes?: ReadonlySet<string>
  /** The Accept header. Default: HTML first. */
  accept?: string
  /** An extra trusted CA (PEM) for https, besides the system's: tests, or a private PKI. */
  ca?: string
}

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1'
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
export const ALLOWED_PORTS: ReadonlySet<string> = new Set(['', '80', '443'])
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml'])

async function defaultLookup(hostname: string): Promise<string[]> {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true })
  return addresses.map((entry) => entry.address)
}

/**
 * On Bun the request goes to the checked IP itself, so a second DNS answer (rebinding) cannot
 * redirect it; the Host header and TLS SNI/certificate name stay the original host.
 * Node and Deno fetch silently drop a custom Host header, so there we fetch the original URL
 * after the check: the runtime resolves the name again, leaving a TOCTOU window in which a
 * rebinding DNS server could answer with a private address. Closing it there needs an undici
 * Agent with a connect lookup (Node) or an egress proxy (Deno).
 */
function pinnedFetch(url: URL, address: string, init: RequestInit, ca?: string): Promise<Response> {
  if (typeof Bun === 'undefined') return fetch(url, init)
  // `proxy: false`: an HTTP(S)_PROXY in the environment would otherwise carry the request, unpinned.
  if (literalAddress(url) !== null) return fetch(url, { ...init, proxy: false } as BunFetchRequestInit)
  // Built from text, not via the `hostname` setter, which silently keeps the old host on bad input.
  const host = address.includes(':') ? `[${address}]` : address
  const target = new URL(`${url.protocol}//${host}${url.port === '' ? '' : `:${url.port}`}${url.pathname}${url.search}`)
  const headers = new Headers(init.headers)
  headers.set('host', url.host)
  const pinned: BunFetchRequestInit = { ...init, headers, proxy: false }
  // The certificate is checked against the host name, not the IP the request goes to.
  if (url.protocol === 'https:') pinned.tls = { serverName: url.hostname, ...(ca ? { ca } : {}) }
  return fetch(target, pinned)
}

/** How a request reaches a checked address: the injected `fetchAddress`, or the pinned fetch. */
export function addressFetcher(
  options: Pick<GuardedFetchOptions, 'fetchAddress' | 'ca'>,
): (url: URL, address: string, init: RequestInit) => Promise<Response> {
  return options.fetchAddress ?? ((url, address, init) => pinnedFetch(url, address, init, options.ca))
}

/** The address when the URL host is an IP literal (WHATWG URL has already normalised `2130706433`, `0x7f.1`…). */
export function literalAddress(url: URL): string | null {
  const host = url.hostname
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1)
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : null
}

/** Scheme and userinfo: checks that need no network, run on the first URL and on every Location. */
export function parseTarget(raw: string, base?: URL): URL {
  let url: URL
  try {
    url = base ? new URL(raw, base) : new URL(raw)
  } catch {
    throw new FetchRefusedError(
      'scheme',
      base ? `Refused redirect from ${base.host}: invalid Location` : 'Refused: not a valid URL',
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError('scheme', `Refused ${url.protocol} URL: only http and https are fetched`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusedError('credentials', `Refused ${url.hostname}: credentials in URL`)
  }
  return url
}

/** Rejects with the signal's reason once it aborts; `lookup` and injected functions take no signal. */
export function untilAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Port rule, DNS and address check; returns the address the connection is pinned to. */
export async function checkedAddress(url: URL, options: GuardedFetchOptions, signal: AbortSignal): Promise<string> {
  if (!options.allowPrivate && !ALLOWED_PORTS.has(url.port)) {
    throw new FetchRefusedError('port', `Refused ${url.hostname}: port ${url.port} is not 80 or 443`)
  }
  const literal = literalAddress(url)
  let addresses: string[]
  if (literal !== null) {
    addresses = [literal]
  } else {
    try {
      addresses = await untilAbort((options.lookup ?? defaultLookup)(url.hostname), signal)
    } catch (error) {
      if (signal.aborted) throw error
      throw new FetchFailedError('dns', `DNS lookup failed for ${url.hostname}`)
    }
  }
  const first = addresses[0]
  if (first === undefined) throw new FetchFailedError('dns', `DNS returned no address for ${url.hostname}`)
  if (!options.allowPrivate) {
    // Every answer must pass: one private answer means the name can point inside.
    const blocked = addresses.find((address) => !isPublicAddress(address))
    if (blocked !== undefined) {
      throw new FetchRefusedError(
        'address',
        `Refused ${url.hostname}: not a public address (${describeAddressRange(blocked)})`,
      )
    }
  }
  return first
}

function classifyStatus(url: URL, status: number): never {
  const message = `${url.hostname} answered HTTP ${status}`
  if (status >= 500 || status === 408 || status === 429) throw new FetchFailedError('status', message, status)
  throw new FetchRefusedError('status', message, status)
}

function mediaType(contentType: string | null): string | null {
  if (contentType === null) return null
  return (contentType.split(';')[0] ?? '').trim().toLowerCase()
}

/** For a response without Content-Type: the first bytes, past a BOM and whitespace, open an HTML document. */
function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 512))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase()
  return /^<(!doctype html|html|head|body|title|meta|!--)[\s>]/.test(head)
}

export async function cancelBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined)
}

interface ReadBody {
  body: Uint8Array
  truncated: boolean
  isHtml: boolean
}

/** Streams at most `maxBytes`; one chunk past the cap is read only to learn whether there was more. */
async function readBody(response: Response, maxBytes: number, sniff: boolean, signal: AbortSignal): Promise<ReadBody> {
  if (!response.body) return { body: new Uint8Array(0), truncated: false, isHtml: !sniff }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  let truncated = false
  try {
    for (;;) {
      const { done, value } = await untilAbort(reader.read(), signal)
      if (done) break
      if (sniff && total === 0 && value.length > 0) {
        if (!looksLikeHtml(value)) return { body: new Uint8Array(0), truncated: false, isHtml: false }
        sniff = false
      }
      const room = maxBytes - total
      if (value.length > room) {
        if (room > 0) chunks.push(value.subarray(0, room))
        total += Math.max(room, 0)
        truncated = true
        break
      }
      chunks.push(value)
      total += value.length
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const body = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.length
  }
  return { body, truncated, isHtml: !sniff }
}

/** The answer at the end of the redirects, not yet read; `at.url` is the URL that gave it. */
interface Followed {
  response: Response
  redirects: number
}

/**
 * GETs `at.url`, following redirects by hand: every hop's scheme, port and addresses checked again, at
 * most `maxRedirects`, no cookie or credential ever sent. `at.url` follows the hops (errors name the host
 * they happened at). A non-2xx final answer is thrown (transient or permanent by its status); the caller
 * reads (or cancels) the body of what is returned.
 */
async function followGuarded(
  at: { url: URL },
  options: GuardedFetchOptions,
  signal: AbortSignal,
  accept: string,
): Promise<Followed> {
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS
  const fetchAddress = addressFetcher(options)
  let redirects = 0
  for (;;) {
    const current = at.url
    const address = await checkedAddress(current, options, signal)
    const init: RequestInit = {
      method: 'GET',
      redirect: 'manual',
      credentials: 'omit',
      signal,
      headers: { 'user-agent': options.userAgent, accept, 'accept-language': 'en' },
    }
    let response: Response
    try {
      response = await untilAbort(fetchAddress(current, address, init), signal)
    } catch (error) {
      if (signal.aborted) throw error
      throw new FetchFailedError('network', `Could not connect to ${current.hostname}`)
    }
    const location = response.headers.get('location')
    if (REDIRECT_STATUSES.has(response.status) && location !== null) {
      await cancelBody(response)
      if (redirects >= maxRedirects) {
        throw new FetchRefusedError('redirects', `Refused ${current.hostname}: more than ${maxRedirects} redirects`)
      }
      redirects += 1
      // Every method becomes GET: we only ever GET, so 303 and 301/302-after-POST need nothing more.
      at.url = parseTarget(location, current)
      continue
    }
    if (response.status < 200 || response.status > 299) {
      await cancelBody(response)
      classifyStatus(current, response.status)
    }
    return { response, redirects }
  }
}

/** A guard error as is; anything else as the timeout or network failure it was. */
function asGuardError(error: unknown, signal: AbortSignal, url: URL): Error {
  if (error instanceof FetchRefusedError || error instanceof FetchFailedError) return error
  if (signal.aborted) return new FetchFailedError('timeout', `Timed out fetching ${url.hostname}`)
  return new FetchFailedError('network', `Could not fetch ${url.hostname}`)
}

/**
 * GET a page for enrichment: http(s) only, no credentials, ports 80/443, every DNS answer public,
 * connection pinned to the checked address, redirects followed by hand and re-checked per hop,
 * one timeout over all hops and the body, HTML bodies capped at `maxBytes`, other bodies not read.
 * Errors name the host and the reason, never the body.
 */
export async function guardedFetch(url: string, options: GuardedFetchOptions): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? MAX_PAGE_BYTES
  const signal = AbortSignal.timeout(options.timeoutMs ?? FETCH_TIMEOUT_MS)
  const at = { url: parseTarget(url) }
  try {
    const { response, redirects } = await followGuarded(at, options, signal, options.accept ?? ACCEPT)
    const contentType = response.headers.get('content-type')
    const type = mediaType(contentType)
    const page = { finalUrl: at.url.href, status: response.status, contentType, redirects }
    const bodyTypes = options.bodyTypes ?? HTML_TYPES
    // Without a Content-Type only HTML is sniffed; a caller that wants another type must be told so.
    if (type === null ? !bodyTypes.has('text/html') : !bodyTypes.has(type)) {
      await cancelBody(response)
      return { ...page, body: new Uint8Array(0), truncated: false, isHtml: false }
    }
    const read = await readBody(response, maxBytes, type === null, signal)
    return { ...page, ...read, isHtml: type === null ? read.isHtml : HTML_TYPES.has(type) }
  } catch (error) {
    throw asGuardError(error, signal, at.url)
  }
}

/** Bytes fetched whatever their claimed type, for a caller that decides by the bytes themselves. */
export interface FetchedBytes {
  finalUrl: string
  redirects: number
  body: Uint8Array
  /** More than `maxBytes` were there (or declared by Content-Length): `body` is empty then. */
  tooLarge: boolean
  /** `head` refused the first bytes: `body` is empty then. */
  refused: boolean
}

export interface GuardedBytesOptions extends GuardedFetchOptions {
  maxBytes: number
  accept: string
  /** Ends the fetch early as well (a budget shared by several fetches). */
  signal?: AbortSignal
  /** Looks at the first bytes (at least `headBytes` of them, unless the body is shorter): false stops reading. */
  head?: (bytes: Uint8Array) => boolean
  headBytes?: number
}

/**
 * GET anything (an article's image: docs/enrichment.md#images) under every rule of {@link guardedFetch},
 * reading at most `maxBytes` whatever the Content-Type says: a body declared or found longer is not kept,
 * and `head` may stop the read after the first bytes.
 */
export async function guardedFetchBytes(url: string, options: GuardedBytesOptions): Promise<FetchedBytes> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? FETCH_TIMEOUT_MS)
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout
  const at = { url: parseTarget(url) }
  try {
    const { response, redirects } = await followGuarded(at, options, signal, options.accept)
    const result = { finalUrl: at.url.href, redirects, body: new Uint8Array(0), tooLarge: false, refused: false }
    const declared = Number(response.headers.get('content-length'))
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await cancelBody(response)
      return { ...result, tooLarge: true }
    }
    const read = await readBytes(response, options, signal)
    return { ...result, ...read }
  } catch (error) {
    throw asGuardError(error, signal, at.url)
  }
}

/** At most `maxBytes` of the body; the first bytes shown to `head`, which may stop the read. */
async function readBytes(
  response: Response,
  options: Pick<GuardedBytesOptions, 'maxBytes' | 'head' | 'headBytes'>,
  signal: AbortSignal,
): Promise<Pick<FetchedBytes, 'body' | 'tooLarge' | 'refused'>> {
  const empty = new Uint8Array(0)
  if (!response.body) return { body: empty, tooLarge: false, refused: options.head ? !options.head(empty) : false }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  let headSeen = options.head === undefined
  const joined = () => {
    const body = new Uint8Array(total)
    let offset = 0
    for (const chunk of chunks) {
      body.set(chunk, offset)
      offset += chunk.length
    }
    return body
  }
  try {
    for (;;) {
      const { done, value } = await untilAbort(reader.read(), signal)
      if (done) break
      total += value.length
      if (total > options.maxBytes) return { body: empty, tooLarge: true, refused: false }
      chunks.push(value)
      if (!headSeen && total >= (options.headBytes ?? 0)) {
        headSeen = true
        if (!options.head!(joined())) return { body: empty, tooLarge: false, refused: true }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const body = joined()
  if (!headSeen && !options.head!(body)) return { body: empty, tooLarge: false, refused: true }
  return { body, tooLarge: false, refused: false }
}
