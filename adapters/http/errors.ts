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

export const INTERNAL_ERROR_BODY = {
  _tag: INTERNAL_ERROR._tag,
  message: 'The service failed to handle this request; retry with backoff and the same Idempotency-Key',
}

/**
 * An answer that fails its own response schema is our bug (say, a corrupt row), not the caller's: logged
 * with where it failed (never the values), answered with a generic 500.
 */
export function responseSchemaFailure(log: Log, where: string): Response {
  log('error', { msg: 'response failed its schema', error: where })
  return jsonResponse(INTERNAL_ERROR.status, INTERNAL_ERROR_BODY)
}
