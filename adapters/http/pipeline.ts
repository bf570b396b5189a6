import { uuidv7 } from '../../core/ids.ts'
import type { AppDeps } from '../app/deps.ts'
import { describeFailure } from '../app/unexpected.ts'
import { settle, type MaybePromise } from '../../core/at-once.ts'
import { internalErrorResponse } from './errors.ts'

/**
 * What the pipeline knows about one request, kept beside it (never on the wire) from the moment the app
 * takes it to its log line: its id, when it started, and who called once the guard knows.
 */
interface RequestRecord {
  id: string
  started: number
  path: string
  caller: { userId: string; kind: string } | null
}

const records = new WeakMap<Request, RequestRecord>()
const socketAddresses = new WeakMap<Request, string | null>()

/** The host's fetch handler hands the socket peer's address in beside the request (per-IP limits read it). */
export function handOverSocketAddress(request: Request, address: string | null): void {
  socketAddresses.set(request, address)
}

/** The socket peer's address the host handed over; null when the app was called without one. */
export function handedSocketAddress(request: Request): string | null {
  return socketAddresses.get(request) ?? null
}

/** The guard names the caller of a request once it knows the credential, for the request's log line. */
export function noteCaller(request: Request, caller: { userId: string; kind: string }): void {
  const record = records.get(request)
  if (record) record.caller = { userId: caller.userId, kind: caller.kind }
}

/** The path and query of a request URL (everything after its origin), read without parsing the URL. */
export function pathWithQueryOf(url: string): string {
  return url.slice(url.indexOf('/', url.indexOf('//') + 2))
}

/** The path of a request URL, without its query, read without parsing the URL. */
export function pathOf(url: string): string {
  const path = pathWithQueryOf(url)
  const query = path.indexOf('?')
  return query < 0 ? path : path.slice(0, query)
}

/**
 * One request through the app, start to finish: stamps its id and start time, lets `handle` (Elysia's
 * lifecycle: the guard, the route, the error hooks) answer it, then gives the answer the request id and
 * the default headers and writes the request's one structured log line (no credentials). A failure thrown
 * past the lifecycle is the typed 500, logged on that same line. At once when `handle` answers at once (the
 * direct list on an embedded file: core/at-once.ts).
 */
export function throughPipeline(
  deps: AppDeps,
  request: Request,
  handle: (request: Request) => MaybePromise<Response>,
  /** When the request was taken, if before this (the direct list resolves its credential first). */
  started: number = performance.now(),
): MaybePromise<Response> {
  const record: RequestRecord = {
    id: uuidv7(Date.now(), deps.random),
    started,
    path: '?',
    caller: null,
  }
  records.set(request, record)
  return settle(
    () => {
      record.path = pathOf(request.url)
      return handle(request)
    },
    (response) => finish(deps, request, record, response, undefined),
    (failure) => finish(deps, request, record, internalErrorResponse(), failure),
  )
}

/**
 * The last resort of a host's fetch handler, for a failure past the app itself: the typed 500 with the
 * request's id and default headers, on the request's one log line.
 */
export function lastResort(deps: AppDeps, request: Request, failure: unknown): Response {
  const record = records.get(request) ?? {
    id: uuidv7(Date.now(), deps.random),
    started: performance.now(),
    path: pathOf(request.url),
    caller: null,
  }
  return finish(deps, request, record, internalErrorResponse(), failure)
}

function finish(
  deps: AppDeps,
  request: Request,
  record: RequestRecord,
  response: Response,
  failure: unknown,
): Response {
  response.headers.set('x-request-id', record.id)
  // Answers are personal unless a route says otherwise (metadata, JWKS and docs assets do), and a
  // browser must never sniff a JSON body into something it runs (docs/security.md#response-headers).
  if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store')
  response.headers.set('x-content-type-options', 'nosniff')
  const caller = record.caller
  deps.log(failure || response.status >= 500 ? 'error' : 'info', {
    msg: 'request',
    requestId: record.id,
    method: request.method,
    path: record.path,
    status: response.status,
    ms: Math.round((performance.now() - record.started) * 100) / 100,
    ...(caller !== null ? { userId: caller.userId, credential: caller.kind } : {}),
    ...(failure ? { error: describeFailure(failure) } : {}),
  })
  return response
}
