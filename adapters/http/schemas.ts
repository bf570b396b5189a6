import { t, type TSchema } from 'elysia'
import type { TLiteral, TUnion } from '@sinclair/typebox'
import { CAPTURE_CHANNELS, ENRICHMENT_STATUSES, ITEM_TYPES, SCOPES, SORTS, TAGS } from '../../core/types.ts'

// One source of truth for request validation, response shaping and /openapi.json. Nullable values are
// `anyOf [X, null]` (JSON Schema 2020-12 style), never OpenAPI 3.0's `nullable`.

const closed = { additionalProperties: false } as const
const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
const literals = <const V extends readonly string[]>(values: V, description?: string) =>
  t.Union(values.map((v) => t.Literal(v)), description ? { description } : {}) as unknown as TUnion<{ -readonly [K in keyof V]: TLiteral<V[K]> }>

export const Tag = literals(TAGS)
export const CaptureChannel = literals(CAPTURE_CHANNELS)
export const Scope = literals(SCOPES)

export const Folder = t.Object({ id: t.String(), name: t.String() }, closed)

const optionalText = t.Optional(nullable(t.String()))
export const SavedItem = t.Object({
  id: t.String({ description: 'UUIDv7' }),
  originalUrl: t.String({ description: 'The URL as first captured' }),
  normalizedUrl: t.String({ description: 'Canonical form used to recognise the same page (README: URL normalization)' }),
  host: t.String(),
  title: optionalText,
  description: optionalText,
  siteName: optionalText,
  faviconUrl: optionalText,
  faviconLightUrl: optionalText,
  faviconDarkUrl: optionalText,
  imageUrl: optionalText,
  canonicalUrl: optionalText,
  previewSummary: optionalText,
  type: literals(ITEM_TYPES),
  tags: t.Array(Tag),
  enrichmentStatus: literals(ENRICHMENT_STATUSES),
  sourceName: optionalText,
  captureChannel: t.Optional(nullable(CaptureChannel)),
  folder: nullable(t.Object({ id: t.String(), name: t.String() }, closed)),
  isRead: t.Boolean(),
  lastSavedAt: t.String({ description: 'RFC 3339 UTC with milliseconds' }),
  createdAt: t.String({ description: 'RFC 3339 UTC with milliseconds' }),
  updatedAt: t.String({ description: 'RFC 3339 UTC with milliseconds' }),
}, closed)

export const CaptureRequest = t.Object({
  url: t.String({ description: 'http or https URL, at most 8192 characters' }),
  sourceName: t.Optional(nullable(t.String({ maxLength: 200 }))),
  captureChannel: t.Optional(nullable(CaptureChannel)),
  tags: t.Optional(nullable(t.Array(Tag, { maxItems: 50 }))),
  folderId: t.Optional(nullable(t.String({ maxLength: 100 }))),
}, closed)

export const CaptureResponseCreated = t.Object({ savedItem: SavedItem, captureResult: t.Literal('created') }, { ...closed, description: 'A new item was saved' })
export const CaptureResponseUpdated = t.Object({ savedItem: SavedItem, captureResult: t.Literal('updated') }, { ...closed, description: 'The URL was already saved: the existing item, updated and back in the queue' })
export const SavedItemList = t.Object({ savedItems: t.Array(SavedItem) }, closed)
export const ListQuery = t.Object({
  sort: t.Optional(nullable(literals(SORTS, 'newest (default) | oldest | title | unread'))),
  folder: t.Optional(nullable(t.String({ description: 'A folder id, or "none" for items in no folder' }))),
  limit: t.Optional(t.String({ pattern: '^[0-9]+$', description: 'Page size 1–500; without it, all items' })),
  cursor: t.Optional(t.String({ description: 'From the `Link: rel="next"` header of the previous page' })),
})
export const ReadStateRequest = t.Object({ isRead: t.Boolean() }, closed)
export const SetFolderRequest = t.Object({ folderId: nullable(t.String({ maxLength: 100 })) }, closed)
export const FolderList = t.Object({ folders: t.Array(Folder) }, closed)
export const FolderNameRequest = t.Object({ name: t.String() }, closed)
export const Health = t.Object({ ok: t.Boolean() }, closed)
export const Me = t.Object({ id: t.String(), email: t.String() }, closed)
export const IdParams = t.Object({ id: t.String() })

const errorBody = (tag: string, fields: Record<string, TSchema> = {}) =>
  t.Object({ _tag: t.Literal(tag), message: t.String(), ...fields }, closed)

export const Errors = {
  ValidationError: errorBody('ValidationError'),
  InvalidUrlError: errorBody('InvalidUrlError', { url: t.String() }),
  InvalidFolderNameError: errorBody('InvalidFolderNameError'),
  Unauthorized: errorBody('Unauthorized'),
  InsufficientScopeError: errorBody('InsufficientScopeError', { requiredScope: t.String() }),
  SavedItemNotFoundError: errorBody('SavedItemNotFoundError', { savedItemId: t.String() }),
  FolderNotFoundError: errorBody('FolderNotFoundError', { folderId: t.String() }),
  FolderNameConflictError: errorBody('FolderNameConflictError'),
  RouteNotFoundError: errorBody('RouteNotFoundError'),
  IdempotencyKeyReuseError: errorBody('IdempotencyKeyReuseError'),
  IdempotencyKeyInFlightError: errorBody('IdempotencyKeyInFlightError'),
  PayloadTooLargeError: errorBody('PayloadTooLargeError'),
  UnsupportedMediaTypeError: errorBody('UnsupportedMediaTypeError'),
  RateLimitExceeded: errorBody('RateLimitExceeded'),
  ConnectError: errorBody('ConnectError', { code: t.String() }),
  InternalError: errorBody('InternalError'),
}

/** Responses every authenticated operation can give besides its own (spec §4, CONTRACT §3). */
export const commonAuthedErrors = {
  401: Errors.Unauthorized,
  403: Errors.InsufficientScopeError,
  429: Errors.RateLimitExceeded,
  500: Errors.InternalError,
}
export const commonWriteErrors = {
  400: Errors.ValidationError,
  409: Errors.IdempotencyKeyInFlightError,
  413: Errors.PayloadTooLargeError,
  415: Errors.UnsupportedMediaTypeError,
  422: Errors.IdempotencyKeyReuseError,
}
