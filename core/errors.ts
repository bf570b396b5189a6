/**
 * Tagged errors. `_tag` equals the wire `_tag` of docs/api.md#errors; the HTTP adapter maps
 * each tag to a status in one table. Guards check `_tag`, so errors survive crossing realms.
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
  constructor(savedItemId: string) {
    super(`No saved item with id "${savedItemId}"`)
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

export type AppError =
  | InvalidUrlError
  | InvalidFolderNameError
  | ValidationError
  | UnauthorizedError
  | InsufficientScopeError
  | OriginNotAllowedError
  | SavedItemNotFoundError
  | ContentNotFoundError
  | FolderNotFoundError
  | FolderNameConflictError
  | RouteNotFoundError
  | IdempotencyKeyReuseError
  | IdempotencyKeyInFlightError
  | PayloadTooLargeError
  | UnsupportedMediaTypeError
  | RateLimitExceededError
  | ConnectError
  | ImportFormatError
  | ImportNotFoundError
  | CursorExpiredError
  | WebhookNotFoundError

const TAGS_OF_APP_ERRORS: ReadonlySet<string> = new Set<AppError['_tag']>([
  'InvalidUrlError',
  'InvalidFolderNameError',
  'ValidationError',
  'Unauthorized',
  'InsufficientScopeError',
  'OriginNotAllowedError',
  'SavedItemNotFoundError',
  'ContentNotFoundError',
  'FolderNotFoundError',
  'FolderNameConflictError',
  'RouteNotFoundError',
  'IdempotencyKeyReuseError',
  'IdempotencyKeyInFlightError',
  'PayloadTooLargeError',
  'UnsupportedMediaTypeError',
  'RateLimitExceeded',
  'ConnectError',
  'ImportFormatError',
  'ImportNotFoundError',
  'CursorExpiredError',
  'WebhookNotFoundError',
])

export function isAppError(value: unknown): value is AppError {
  return (
    typeof value === 'object' && value !== null && TAGS_OF_APP_ERRORS.has((value as { _tag?: unknown })._tag as string)
  )
}

/** The wire body of an error: `_tag`, `message` and the type's own fields, nothing else. */
export function toErrorBody(error: AppError): Record<string, string> {
  const body: Record<string, string> = { _tag: error._tag, message: error.message }
  if (error._tag === 'InvalidUrlError') body.url = error.url
  if (error._tag === 'InsufficientScopeError') body.requiredScope = error.requiredScope
  if (error._tag === 'SavedItemNotFoundError' || error._tag === 'ContentNotFoundError')
    body.savedItemId = error.savedItemId
  if (error._tag === 'FolderNotFoundError') body.folderId = error.folderId
  if (error._tag === 'ConnectError') body.code = error.code
  if (error._tag === 'ImportNotFoundError') body.importId = error.importId
  if (error._tag === 'WebhookNotFoundError') body.webhookId = error.webhookId
  return body
}
