import type { AppError } from '../../core/errors.ts'
import { toErrorBody } from '../../core/errors.ts'
import type { Log } from '../app/deps.ts'

/** The one table from error type to HTTP status (docs/api.md#errors). `Record` keeps it exhaustive. */
export const STATUS_BY_TAG: Record<AppError['_tag'], number> = {
  InvalidUrlError: 400,
  InvalidFolderNameError: 400,
  ValidationError: 400,
  ConnectError: 400,
  ImportFormatError: 400,
  Unauthorized: 401,
  InsufficientScopeError: 403,
  OriginNotAllowedError: 403,
  SavedItemNotFoundError: 404,
  ContentNotFoundError: 404,
  FolderNotFoundError: 404,
  ImportNotFoundError: 404,
  WebhookNotFoundError: 404,
  RouteNotFoundError: 404,
  FolderNameConflictError: 409,
  CursorExpiredError: 410,
  IdempotencyKeyInFlightError: 409,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
  IdempotencyKeyReuseError: 422,
  RateLimitExceeded: 429,
}

export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  const response = new Response(JSON.stringify(body), { status, headers })
  response.headers.set('content-type', 'application/json')
  return response
}

export function errorResponse(error: AppError, headers: HeadersInit = {}): Response {
  return jsonResponse(STATUS_BY_TAG[error._tag], toErrorBody(error), headers)
}

export const INTERNAL_ERROR_BODY = {
  _tag: 'InternalError',
  message: 'The service failed to handle this request; retry with backoff and the same Idempotency-Key',
}

/**
 * An answer that fails its own response schema is our bug (say, a corrupt row), not the caller's: logged
 * with where it failed (never the values), answered with a generic 500.
 */
export function responseSchemaFailure(log: Log, where: string): Response {
  log('error', { msg: 'response failed its schema', error: where })
  return jsonResponse(500, INTERNAL_ERROR_BODY)
}
