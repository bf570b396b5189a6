// The REST calls the extension makes (docs/api.md), over plain fetch with the connection's API key.
import type { Connection } from './settings.ts'

export interface Folder {
  id: string
  name: string
}

/** The fields of a SavedItemDto the extension reads (docs/api.md). */
export interface SavedItem {
  id: string
  originalUrl: string
  normalizedUrl: string
  title: string | null
  tags: string[]
  folder: Folder | null
  isRead: boolean
  enrichmentStatus?: string
}

export interface CaptureResponse {
  savedItem: SavedItem
  captureResult: 'created' | 'updated'
}

/** The seven tags the API accepts (docs/api.md#endpoints). */
export const TAGS = ['ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end'] as const

export interface Answer {
  status: number
  headers: Headers
  body: unknown
}

/** The server could not be reached at all (no answer): offline, refused, DNS, a timeout. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError'
}

/** An answer other than 2xx, with its typed body's `_tag` and message (docs/api.md#errors). */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
  ) {
    super(message)
  }
}

export const joinUrl = (base: string, path: string): string => base.replace(/\/+$/, '') + path

/** One request; throws NetworkError when no answer came, else returns the answer whatever its status. */
export async function request(
  url: string,
  init: { method?: string; apiKey?: string; body?: string; idempotencyKey?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey
  let response: Response
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body,
      credentials: 'omit',
      cache: 'no-store',
      signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
    })
  } catch (error) {
    throw new NetworkError(error instanceof Error ? error.message : String(error))
  }
  const text = await response.text().catch(() => '')
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = null
  }
  return { status: response.status, headers: response.headers, body }
}

export function apiErrorOf(answer: Answer): ApiError {
  const body = answer.body as { _tag?: unknown; message?: unknown } | null
  return new ApiError(
    answer.status,
    typeof body?._tag === 'string' ? body._tag : 'HttpError',
    typeof body?.message === 'string' ? body.message : `HTTP ${answer.status}`,
  )
}

/** A call with the connection's key; the 2xx body, else ApiError (or NetworkError). */
export async function call<T>(connection: Connection, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await request(joinUrl(connection.base, path), {
    method,
    apiKey: connection.apiKey,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (answer.status < 200 || answer.status > 299) throw apiErrorOf(answer)
  return answer.body as T
}

export const api = {
  me: (c: Connection) => call<{ id: string; email: string }>(c, 'GET', '/v1/me'),
  folders: async (c: Connection) => (await call<{ folders: Folder[] }>(c, 'GET', '/v1/folders')).folders,
  setFolder: (c: Connection, id: string, folderId: string | null) =>
    call<SavedItem>(c, 'PUT', `/v1/saved-items/${encodeURIComponent(id)}/folder`, { folderId }),
  setTags: (c: Connection, id: string, tags: string[]) =>
    call<SavedItem>(c, 'PUT', `/v1/saved-items/${encodeURIComponent(id)}/tags`, { tags }),
  markRead: (c: Connection, id: string) => call<SavedItem>(c, 'POST', `/v1/saved-items/${encodeURIComponent(id)}/read`),
  /** The saved item of a URL, or null when it is not saved (404 SavedItemNotFoundError). */
  lookup: async (c: Connection, url: string): Promise<SavedItem | null> => {
    try {
      return await call<SavedItem>(c, 'GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`)
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null
      throw error
    }
  },
}

/** Where the reader view of an item is. */
export const itemUrl = (connection: Pick<Connection, 'app'>, id: string): string =>
  joinUrl(connection.app, `/items/${encodeURIComponent(id)}`)
