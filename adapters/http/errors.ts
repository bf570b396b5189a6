import type { AppError, AppErrorTag } from '../../core/errors.ts'
import { APP_ERRORS, INTERNAL_ERROR, toErrorBody } from '../../core/errors.ts'
import type { Log } from '../app/deps.ts'

/** Error type -> HTTP status (docs/api.md#errors), read off core's one table of errors. */
export const STATUS_BY_TAG = Object.fromEntries(
  Object.entries(APP_ERRORS).map(([tag, entry]) => [tag, entry.status]),
) as Record<AppErrorTag, number>

export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  const response = new Response(JSON.stringify(body), { status, headers })
  response.headers.set('content-type', 'application/json')
  return response
}

export function errorResponse(error: AppError, headers: HeadersInit = {}): Response {
  return jsonResponse(STATUS_BY_TAG[error._tag], toErrorBody(error), headers)
}

const INTERNAL_ERROR_BODY = {
  _tag: INTERNAL_ERROR._tag,
  message: 'The service failed to handle this request; retry with backoff and the same Idempotency-Key',
}

/** The REST API's typed 500 (docs/api.md#errors): the same generic body whatever failed. */
export const internalErrorResponse = (): Response => jsonResponse(INTERNAL_ERROR.status, INTERNAL_ERROR_BODY)

/**
 * The REST API's error boundary for a failure that is ours, not the caller's: a bug, a dead database, an
 * answer that breaks its own response schema (say, a corrupt row). One error log line, `msg` saying what
 * failed and `error` how (a place and a rule, or describeFailure's text: never the request's values), then
 * the typed 500. A failure thrown past Elysia is answered by pipeline.ts, on the request's own log line.
 */
export function internalError(log: Log, msg: string, error: string): Response {
  log('error', { msg, error })
  return internalErrorResponse()
}

/** An answer that fails its own response schema, at `where` (a path and a rule, never the values). */
export const responseSchemaFailure = (log: Log, where: string): Response =>
  internalError(log, 'response failed its schema', where)
