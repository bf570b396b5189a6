// `readlater/client`: a typed client for the REST API (docs/embedding.md#the-client). Web APIs only, so it runs on Bun,
// Deno, Node, in a browser extension or a Raycast command. Its types are the schemas the server validates
// with and documents in /openapi.json (test/client/client.test.ts checks every call against that document).
import type { Static, TSchema } from '@sinclair/typebox'
import type * as S from '../adapters/http/schemas.ts'

type Of<T extends TSchema> = Static<T>

export type SavedItem = Of<typeof S.SavedItem>
export type Folder = Of<typeof S.Folder>
export type CaptureRequest = Of<typeof S.CaptureRequest>
export type CaptureResponse = Of<typeof S.CaptureResponseCreated> | Of<typeof S.CaptureResponseUpdated>
export type ListQuery = { sort?: 'newest' | 'oldest' | 'title' | 'unread'; folder?: string; limit?: number }
export type SearchResult = Of<typeof S.SearchResults>['results'][number]
export type ChangesPage = Of<typeof S.ChangesPage>
export type Change = ChangesPage['changes'][number]
export type ArticleHtml = Of<typeof S.HtmlContent>
export type ArticleText = Of<typeof S.TextContent>
export type ArticleMarkdown = Of<typeof S.MarkdownContent>
export type Webhook = Of<typeof S.Webhook>
export type WebhookCreated = Of<typeof S.WebhookCreated>
export type WebhookDelivery = Of<typeof S.WebhookDelivery>
export type WebhookEvent = Of<typeof S.WebhookEventName>
export type Highlight = Of<typeof S.Highlight>
/** A highlight in the list of all of them, with the item it is on. */
export type ListedHighlight = Of<typeof S.ListedHighlight>
export type HighlightCreateRequest = Of<typeof S.HighlightCreateRequest>
export type HighlightPatch = Of<typeof S.HighlightPatchRequest>
export type HighlightColor = Of<typeof S.HighlightColor>
export type Me = Of<typeof S.Me>
export type Tag = Of<typeof S.Tag>

/**
 * The item id and number of an archived image's URL in an article's HTML (`{APP_URL}/items/{id}/images/{n}`,
 * docs/reading.md#archived-images), or null for any other URL: with a bearer credential, read it with
 * `savedItems.image(itemId, n)`. `appUrl` is the web app's address (the server's APP_URL, by default its
 * BASE_URL). The client imports nothing at run time, so this is core/reading/archived-image-url.ts's rule
 * written again (test/client/client.test.ts holds the two to the same answers).
 */
export function archivedImageOf(src: string, appUrl: string): { itemId: string; n: number } | null {
  const prefix = `${appUrl.replace(/\/+$/, '')}/items/`
  if (!src.startsWith(prefix)) return null
  const match = /^([^/?#]+)\/images\/([1-9][0-9]{0,8})$/.exec(src.slice(prefix.length))
  if (!match) return null
  try {
    return { itemId: decodeURIComponent(match[1]!), n: Number(match[2]) }
  } catch {
    return null
  }
}

/** An error answer of the API, with its typed body (docs/api.md#errors). */
export class ReadlaterError extends Error {
  override readonly name = 'ReadlaterError'
  readonly status: number
  /** The body's `_tag` (`ValidationError`, `SavedItemNotFoundError`, …), or `HttpError` for a body that is not ours. */
  readonly tag: string
  readonly body: Record<string, unknown> | null
  constructor(status: number, body: Record<string, unknown> | null) {
    const tag = typeof body?._tag === 'string' ? body._tag : 'HttpError'
    super(typeof body?.message === 'string' ? body.message : `HTTP ${status}`)
    this.status = status
    this.tag = tag
    this.body = body
  }
}

export interface ClientOptions {
  /** Where the API is: the server's BASE_URL (`https://read.example.com`, prefix included if any). */
  baseUrl: string
  /** An API key (`rl_…`) or an OAuth access token. */
  token: string
  /** Another fetch (tests, a proxy, a runtime without a global one). */
  fetch?: typeof fetch
  /** Retries of a 429 (after its `Retry-After`) or a 503; default 3. Writes keep their Idempotency-Key. */
  maxRetries?: number
  /** The longest wait for one retry, in ms; default 60,000 (a longer Retry-After is an error at once). */
  maxRetryDelayMs?: number
  /** Makes Idempotency-Keys; default `crypto.randomUUID()`. */
  newIdempotencyKey?: () => string
}

export interface WriteOptions {
  /** The write's Idempotency-Key; default a new one per call, kept across its retries (docs/api.md#idempotency). */
  idempotencyKey?: string
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The `rel="next"` target of a Link header, if any. */
function nextLink(header: string | null): string | null {
  if (!header) return null
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part)
    if (match) return match[1]!
  }
  return null
}

/**
 * A client for one credential. Every write carries an Idempotency-Key (yours or a new one) that its retries
 * reuse, so a write retried after a 429 or a dropped answer happens once. Lists page with async iterators.
 */
export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? fetch
  const maxRetries = options.maxRetries ?? 3
  const maxDelay = options.maxRetryDelayMs ?? 60_000
  const newKey = options.newIdempotencyKey ?? (() => crypto.randomUUID())

  async function send(
    method: string,
    pathOrUrl: string,
    body?: unknown,
    write: WriteOptions = {},
    binary = false,
  ): Promise<{ response: Response; json: unknown; blob?: Blob }> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${base}${pathOrUrl}`
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      // An error is still typed JSON (docs/api.md#errors).
      accept: binary ? 'image/*, application/json;q=0.5' : 'application/json',
    }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (WRITES.has(method)) headers['idempotency-key'] = write.idempotencyKey ?? newKey()
    for (let attempt = 0; ; attempt++) {
      const response = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const retryable = response.status === 429 || response.status === 503
      if (retryable && attempt < maxRetries) {
        const seconds = Number(response.headers.get('retry-after'))
        const delay = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 2 ** attempt * 500
        if (delay <= maxDelay) {
          await response.body?.cancel()
          await new Promise((resolve) => setTimeout(resolve, delay))
          continue
        }
      }
      if (binary && response.ok) return { response, json: null, blob: await response.blob() }
      const text = await response.text()
      let json: unknown = null
      try {
        json = text ? JSON.parse(text) : null
      } catch {
        json = null
      }
      if (!response.ok) throw new ReadlaterError(response.status, json as Record<string, unknown> | null)
      return { response, json }
    }
  }
  const call = async <T>(method: string, path: string, body?: unknown, write?: WriteOptions): Promise<T> =>
    (await send(method, path, body, write)).json as T
  const query = (params: Record<string, string | number | undefined>) => {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value))
    const text = search.toString()
    return text ? `?${text}` : ''
  }
  const id = (value: string) => encodeURIComponent(value)

  /**
   * Pages of a list whose next page is named by a `Link: rel="next"` header. Only its query is taken: the
   * link is absolute on the server's public address, which a client inside the network may reach otherwise.
   */
  async function* linked<T>(path: string, params: string, pick: (json: unknown) => T[]): AsyncGenerator<T> {
    let next: string | null = params
    while (next !== null) {
      const { response, json } = await send('GET', `${path}${next}`)
      yield* pick(json)
      const link = nextLink(response.headers.get('link'))
      next = link === null ? null : new URL(link, base).search
    }
  }

  return {
    /** `POST /v1/captures`: saves a page, or saves it again (docs/api.md#captures). */
    capture: (request: CaptureRequest, write?: WriteOptions) =>
      call<CaptureResponse>('POST', '/v1/captures', request, write),
    savedItems: {
      /** One page (default 50 when `limit` is given; without it, every item). */
      list: async (q: ListQuery & { cursor?: string } = {}) => {
        const { response, json } = await send('GET', `/v1/saved-items${query(q)}`)
        const next = nextLink(response.headers.get('link'))
        return {
          savedItems: (json as { savedItems: SavedItem[] }).savedItems,
          nextCursor: next ? new URL(next, base).searchParams.get('cursor') : null,
        }
      },
      /** Every item, page by page (`limit` per request, default 100). */
      all: (q: ListQuery = {}) =>
        linked(
          '/v1/saved-items',
          query({ ...q, limit: q.limit ?? 100 }),
          (json) => (json as { savedItems: SavedItem[] }).savedItems,
        ),
      open: (itemId: string, write?: WriteOptions) =>
        call<SavedItem>('POST', `/v1/saved-items/${id(itemId)}/open`, undefined, write),
      markRead: (itemId: string, write?: WriteOptions) =>
        call<SavedItem>('POST', `/v1/saved-items/${id(itemId)}/read`, undefined, write),
      markUnread: (itemId: string, write?: WriteOptions) =>
        call<SavedItem>('POST', `/v1/saved-items/${id(itemId)}/unread`, undefined, write),
      move: (itemId: string, folderId: string | null, write?: WriteOptions) =>
        call<SavedItem>('PUT', `/v1/saved-items/${id(itemId)}/folder`, { folderId }, write),
      /** `PUT …/tags`: the whole set of tags the item is to have; `[]` removes them (docs/api.md#tags). */
      setTags: (itemId: string, tags: readonly Tag[], write?: WriteOptions) =>
        call<SavedItem>('PUT', `/v1/saved-items/${id(itemId)}/tags`, { tags }, write),
      /** "Is this page saved?" (docs/api.md#lookup): the item for a URL, or null when there is none. */
      lookup: async (url: string): Promise<SavedItem | null> => {
        try {
          return await call<SavedItem>('GET', `/v1/saved-items/lookup${query({ url })}`)
        } catch (error) {
          if (error instanceof ReadlaterError && error.tag === 'SavedItemNotFoundError') return null
          throw error
        }
      },
      delete: async (itemId: string, write?: WriteOptions) => {
        await send('DELETE', `/v1/saved-items/${id(itemId)}`, undefined, write)
      },
      /** The article (docs/reading.md): HTML and text, or Markdown. */
      content: (itemId: string, format: 'html' | 'markdown' = 'html') =>
        call<ArticleHtml | ArticleMarkdown>(
          'GET',
          `/v1/saved-items/${id(itemId)}/content${format === 'markdown' ? '?format=markdown' : ''}`,
        ),
      /**
       * The item's n-th archived image (docs/reading.md#archived-images), as a Blob whose `type` is the sniffed
       * one. The article's HTML points at it as `{APP_URL}/items/{id}/images/{n}`: {@link archivedImageOf}
       * reads the id and number off such a URL.
       */
      image: async (itemId: string, n: number): Promise<Blob> =>
        (await send('GET', `/v1/saved-items/${id(itemId)}/images/${n}`, undefined, {}, true)).blob!,
    },
    /** Highlights of articles (docs/highlights.md). */
    highlights: {
      /** `POST /v1/saved-items/{id}/highlights`: highlights a passage of the item's article `text`. */
      create: async (itemId: string, request: HighlightCreateRequest, write?: WriteOptions) =>
        (await call<{ highlight: Highlight }>('POST', `/v1/saved-items/${id(itemId)}/highlights`, request, write))
          .highlight,
      /** An item's highlights in text order, those not found in the current text (`position: null`) last. */
      listForItem: async (itemId: string) =>
        (await call<{ highlights: Highlight[] }>('GET', `/v1/saved-items/${id(itemId)}/highlights`)).highlights,
      /** One page of all highlights, newest first (without `limit`, every highlight). */
      list: async (q: { limit?: number; cursor?: string } = {}) => {
        const { response, json } = await send('GET', `/v1/highlights${query(q)}`)
        const next = nextLink(response.headers.get('link'))
        return {
          highlights: (json as { highlights: ListedHighlight[] }).highlights,
          nextCursor: next ? new URL(next, base).searchParams.get('cursor') : null,
        }
      },
      /** Every highlight, newest first, page by page (`limit` per request, default 100). */
      all: (q: { limit?: number } = {}) =>
        linked(
          '/v1/highlights',
          query({ limit: q.limit ?? 100 }),
          (json) => (json as { highlights: ListedHighlight[] }).highlights,
        ),
      /** `PATCH /v1/highlights/{id}`: colour and/or note (`note: null` clears it). */
      update: async (highlightId: string, patch: HighlightPatch, write?: WriteOptions) =>
        (await call<{ highlight: Highlight }>('PATCH', `/v1/highlights/${id(highlightId)}`, patch, write)).highlight,
      delete: async (highlightId: string, write?: WriteOptions) => {
        await send('DELETE', `/v1/highlights/${id(highlightId)}`, undefined, write)
      },
    },
    /** Every result of a search (docs/search.md), page by page. */
    search: (q: string, options: { limit?: number } = {}) =>
      linked('/v1/search', query({ q, limit: options.limit }), (json) => (json as { results: SearchResult[] }).results),
    /**
     * The changes feed (docs/api.md#changes) from `since` (none: everything), page by page until nothing more
     * waits; keep the last page's `cursor` for next time.
     */
    async *changes(since?: string): AsyncGenerator<ChangesPage> {
      let cursor = since
      for (;;) {
        const page = await call<ChangesPage>('GET', `/v1/changes${query({ since: cursor })}`)
        yield page
        if (!page.hasMore) return
        cursor = page.cursor
      }
    },
    folders: {
      list: async () => (await call<{ folders: Folder[] }>('GET', '/v1/folders')).folders,
      create: (name: string, write?: WriteOptions) => call<Folder>('POST', '/v1/folders', { name }, write),
      rename: (folderId: string, name: string, write?: WriteOptions) =>
        call<Folder>('PATCH', `/v1/folders/${id(folderId)}`, { name }, write),
      delete: async (folderId: string, write?: WriteOptions) => {
        await send('DELETE', `/v1/folders/${id(folderId)}`, undefined, write)
      },
    },
    webhooks: {
      create: (url: string, events: WebhookEvent[], write?: WriteOptions) =>
        call<WebhookCreated>('POST', '/v1/webhooks', { url, events }, write),
      list: async () => (await call<{ webhooks: Webhook[] }>('GET', '/v1/webhooks')).webhooks,
      delete: async (webhookId: string, write?: WriteOptions) => {
        await send('DELETE', `/v1/webhooks/${id(webhookId)}`, undefined, write)
      },
      test: async (webhookId: string, write?: WriteOptions) =>
        (await call<{ delivery: WebhookDelivery }>('POST', `/v1/webhooks/${id(webhookId)}/test`, undefined, write))
          .delivery,
      deliveries: async (webhookId: string) =>
        (await call<{ deliveries: WebhookDelivery[] }>('GET', `/v1/webhooks/${id(webhookId)}/deliveries`)).deliveries,
    },
    me: () => call<Me>('GET', '/v1/me'),
  }
}

export type ReadlaterClient = ReturnType<typeof createClient>
