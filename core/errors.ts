/**
 * Tagged errors. `_tag` equals the wire `_tag` of docs/api.md#errors. APP_ERRORS, at the end, is the one
 * table of them: tag -> class, HTTP status and the body's own fields; the union type, the tag set, the
 * status map, `toErrorBody` and the OpenAPI error schemas all derive from it. Guards check `_tag`, so
 * errors survive crossing realms.
 */

export class InvalidUrlError extends Error {
  readonly _tag = 'InvalidUrlError'
  readonly url: string
  constructor(url: string, message: string) {
    super(message)
    this.url = url
  }
}

export class InvalidFolderNameError extends Error {
  readonly _tag = 'InvalidFolderNameError'
}

export class ValidationError extends Error {
  readonly _tag = 'ValidationError'
}

export class UnauthorizedError extends Error {
  readonly _tag = 'Unauthorized'
  /** Whether the caller sent a credential at all (adds `error="invalid_token"` to WWW-Authenticate). */
  readonly credentialSent: boolean
  constructor(message: string, credentialSent: boolean) {
    super(message)
    this.credentialSent = credentialSent
  }
}

export class InsufficientScopeError extends Error {
  readonly _tag = 'InsufficientScopeError'
  /** The scope(s) the call lacks, space-separated. */
  readonly requiredScope: string
  /** The `scope` to name in the WWW-Authenticate challenge, when it is more than `requiredScope`. */
  readonly challengeScope: string
  constructor(requiredScope: string, challengeScope: string = requiredScope) {
    super(
      requiredScope.includes(' ')
        ? `This call needs the scopes "${requiredScope}", which the credential was not granted`
        : `This call needs the "${requiredScope}" scope, which the credential was not granted`,
    )
    this.requiredScope = requiredScope
    this.challengeScope = challengeScope
  }
}

export class SavedItemNotFoundError extends Error {
  readonly _tag = 'SavedItemNotFoundError'
  readonly savedItemId: string
  /** `message` for a lookup by something other than the id (docs/api.md#lookup). */
  constructor(savedItemId: string, message = `No saved item with id "${savedItemId}"`) {
    super(message)
    this.savedItemId = savedItemId
  }
}

/** The item exists but has no article: pending, failed, not an article, or nothing readable. */
export class ContentNotFoundError extends Error {
  readonly _tag = 'ContentNotFoundError'
  readonly savedItemId: string
  constructor(savedItemId: string) {
    super(`Saved item "${savedItemId}" has no readable content (not enriched yet, failed, or not an article)`)
    this.savedItemId = savedItemId
  }
}

/** The item is the caller's, but it has no archived image of that number (docs/reading.md#archived-images). */
export class ImageNotFoundError extends Error {
  readonly _tag = 'ImageNotFoundError'
  readonly savedItemId: string
  constructor(savedItemId: string, n: string) {
    super(`Saved item "${savedItemId}" has no archived image ${JSON.stringify(n.slice(0, 32))}`)
    this.savedItemId = savedItemId
  }
}

export class FolderNotFoundError extends Error {
  readonly _tag = 'FolderNotFoundError'
  readonly folderId: string
  constructor(folderId: string) {
    super(`No folder with id "${folderId}"`)
    this.folderId = folderId
  }
}

export class FolderNameConflictError extends Error {
  readonly _tag = 'FolderNameConflictError'
}

export class RouteNotFoundError extends Error {
  readonly _tag = 'RouteNotFoundError'
}

export class IdempotencyKeyReuseError extends Error {
  readonly _tag = 'IdempotencyKeyReuseError'
}

export class IdempotencyKeyInFlightError extends Error {
  readonly _tag = 'IdempotencyKeyInFlightError'
}

export class PayloadTooLargeError extends Error {
  readonly _tag = 'PayloadTooLargeError'
}

export class UnsupportedMediaTypeError extends Error {
  readonly _tag = 'UnsupportedMediaTypeError'
}

export class RateLimitExceededError extends Error {
  readonly _tag = 'RateLimitExceeded'
}

/** The `code` values of a ConnectError; which condition yields which is in docs/oauth.md#connect-flow. */
export const CONNECT_ERROR_CODES = [
  'unknown_client',
  'invalid_redirect_uri',
  'invalid_scope',
  'invalid_code',
  'invalid_verifier',
  'client_mismatch',
] as const

export class ConnectError extends Error {
  readonly _tag = 'ConnectError'
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
  }
}

/**
 * A file that cannot be imported at all: no supported format, a broken container, too large
 * (docs/import-export.md#imports). The import is refused whole and nothing is written.
 */
export class ImportFormatError extends Error {
  readonly _tag = 'ImportFormatError'
}

/** No import with this id among the caller's own (docs/import-export.md#imports). */
export class ImportNotFoundError extends Error {
  readonly _tag = 'ImportNotFoundError'
  readonly importId: string
  constructor(importId: string) {
    super(`No import with id "${importId.slice(0, 64)}"`)
    this.importId = importId.slice(0, 64)
  }
}

/**
 * A highlight's quote that the item's article text does not contain (docs/highlights.md#anchoring): nothing
 * is written.
 */
export class HighlightAnchorError extends Error {
  readonly _tag = 'HighlightAnchorError'
  readonly savedItemId: string
  constructor(savedItemId: string, message = `The article of saved item "${savedItemId}" does not contain the quote`) {
    super(message)
    this.savedItemId = savedItemId
  }
}

/** No highlight with this id among the caller's own (docs/highlights.md#errors). */
export class HighlightNotFoundError extends Error {
  readonly _tag = 'HighlightNotFoundError'
  readonly highlightId: string
  constructor(highlightId: string) {
    super(`No highlight with id "${highlightId.slice(0, 64)}"`)
    this.highlightId = highlightId.slice(0, 64)
  }
}

/** A changes-feed cursor older than the feed keeps (docs/api.md#changes): start over without `since`. */
export class CursorExpiredError extends Error {
  readonly _tag = 'CursorExpiredError'
}

/** No webhook with this id among the caller's own (docs/webhooks.md#api). */
export class WebhookNotFoundError extends Error {
  readonly _tag = 'WebhookNotFoundError'
  readonly webhookId: string
  constructor(webhookId: string) {
    super(`No webhook with id "${webhookId.slice(0, 64)}"`)
    this.webhookId = webhookId.slice(0, 64)
  }
}

/**
 * A request to `/mcp` from a browser page whose `Origin` this service does not accept (MCP transport
 * security: DNS rebinding). @see docs/mcp.md and docs/security.md#mcp-origin
 */
export class OriginNotAllowedError extends Error {
  readonly _tag = 'OriginNotAllowedError'
}

/** What a field of an error body holds: any string, or one of a closed set of values. */
export type WireField = 'string' | readonly string[]

/** A row of APP_ERRORS, as code that reads any row sees it. */
export interface ErrorEntry {
  readonly status: number
  readonly fields?: Readonly<Record<string, WireField>>
}

/** The names of an error's own string fields (what its body may carry besides `_tag` and `message`). */
type OwnStringFields<E> = Exclude<
  { [K in keyof E]: E[K] extends string ? K : never }[keyof E],
  '_tag' | 'message' | 'name' | 'stack'
>

/**
 * Each key is the `_tag` of its class (checked by the compiler), and each field one of its string
 * properties.
 */
type ErrorTable<T> = {
  readonly [Tag in keyof T & string]: {
    readonly error: abstract new (...args: never[]) => Error & { readonly _tag: Tag }
    readonly status: number
    readonly fields?: T[Tag] extends { error: abstract new (...args: never[]) => infer E; fields: infer Fields }
      ? { readonly [F in keyof Fields]: F extends OwnStringFields<E> ? WireField : never }
      : never
  }
}

const errorTable = <const T extends ErrorTable<T>>(table: T): T => table

/**
 * Every typed error of docs/api.md#errors: its class, its HTTP status, and the fields its body carries
 * besides `_tag` and `message`. test/core/errors.test.ts fails on a class of this module without a row.
 */
export const APP_ERRORS = errorTable({
  ValidationError: { error: ValidationError, status: 400 },
  InvalidUrlError: { error: InvalidUrlError, status: 400, fields: { url: 'string' } },
  InvalidFolderNameError: { error: InvalidFolderNameError, status: 400 },
  ConnectError: { error: ConnectError, status: 400, fields: { code: CONNECT_ERROR_CODES } },
  ImportFormatError: { error: ImportFormatError, status: 400 },
  Unauthorized: { error: UnauthorizedError, status: 401 },
  InsufficientScopeError: { error: InsufficientScopeError, status: 403, fields: { requiredScope: 'string' } },
  OriginNotAllowedError: { error: OriginNotAllowedError, status: 403 },
  SavedItemNotFoundError: { error: SavedItemNotFoundError, status: 404, fields: { savedItemId: 'string' } },
  ContentNotFoundError: { error: ContentNotFoundError, status: 404, fields: { savedItemId: 'string' } },
  ImageNotFoundError: { error: ImageNotFoundError, status: 404, fields: { savedItemId: 'string' } },
  FolderNotFoundError: { error: FolderNotFoundError, status: 404, fields: { folderId: 'string' } },
  ImportNotFoundError: { error: ImportNotFoundError, status: 404, fields: { importId: 'string' } },
  WebhookNotFoundError: { error: WebhookNotFoundError, status: 404, fields: { webhookId: 'string' } },
  HighlightNotFoundError: { error: HighlightNotFoundError, status: 404, fields: { highlightId: 'string' } },
  RouteNotFoundError: { error: RouteNotFoundError, status: 404 },
  FolderNameConflictError: { error: FolderNameConflictError, status: 409 },
  IdempotencyKeyInFlightError: { error: IdempotencyKeyInFlightError, status: 409 },
  CursorExpiredError: { error: CursorExpiredError, status: 410 },
  PayloadTooLargeError: { error: PayloadTooLargeError, status: 413 },
  UnsupportedMediaTypeError: { error: UnsupportedMediaTypeError, status: 415 },
  IdempotencyKeyReuseError: { error: IdempotencyKeyReuseError, status: 422 },
  HighlightAnchorError: { error: HighlightAnchorError, status: 422, fields: { savedItemId: 'string' } },
  RateLimitExceeded: { error: RateLimitExceededError, status: 429 },
})

export type AppErrorTag = keyof typeof APP_ERRORS
export type AppError = InstanceType<(typeof APP_ERRORS)[AppErrorTag]['error']>

/** The answer to anything unexpected (a bug, a dead database): a wire tag with no class, never thrown. */
export const INTERNAL_ERROR = { _tag: 'InternalError', status: 500 } as const

const APP_ERROR_TAGS: ReadonlySet<string> = new Set(Object.keys(APP_ERRORS))

export function isAppError(value: unknown): value is AppError {
  return typeof value === 'object' && value !== null && APP_ERROR_TAGS.has((value as { _tag?: unknown })._tag as string)
}

/** The wire body of an error: `_tag`, `message` and the type's own fields, nothing else. */
export function toErrorBody(error: AppError): Record<string, string> {
  const body: Record<string, string> = { _tag: error._tag, message: error.message }
  const entry: ErrorEntry = APP_ERRORS[error._tag]
  for (const field of Object.keys(entry.fields ?? {}))
    body[field] = (error as unknown as Record<string, string>)[field]!
  return body
}
