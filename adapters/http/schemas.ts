import { Type } from '@sinclair/typebox'
import { t, type TSchema } from 'elysia'
import type { TLiteral, TUnion } from '@sinclair/typebox'
import { CAPTURE_CHANNELS, ENRICHMENT_STATUSES, ITEM_TYPES, SCOPES, SORTS, TAGS } from '../../core/types.ts'
import { APP_ERRORS, INTERNAL_ERROR, type AppErrorTag, type ErrorEntry, type WireField } from '../../core/errors.ts'
import { IMPORT_FORMATS } from '../../core/import/types.ts'
import { EXPORT_FORMATS } from '../../core/export/export.ts'
import { WEBHOOK_EVENTS } from '../../core/webhooks/events.ts'
import { CODE_CHALLENGE_PATTERN } from '../../core/connect/connect-request.ts'
import { MAX_URL_LENGTH } from '../../core/url/normalize-url.ts'
import { CONTEXT_LENGTH, HIGHLIGHT_COLORS, MAX_EXACT_LENGTH, MAX_NOTE_LENGTH } from '../../core/highlights/highlight.ts'

// One source of truth for request validation, response shaping and /openapi.json. Nullable values are
// `anyOf [X, null]` (JSON Schema 2020-12 style), never OpenAPI 3.0's `nullable`.

const closed = { additionalProperties: false } as const
export const nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])
export const literals = <const V extends readonly string[]>(values: V, description?: string) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    description ? { description } : {},
  ) as unknown as TUnion<{ -readonly [K in keyof V]: TLiteral<V[K]> }>

export const Tag = literals(TAGS)
export const CaptureChannel = literals(CAPTURE_CHANNELS)
export const Scope = literals(SCOPES)

export const Folder = t.Object({ id: t.String(), name: t.String() }, closed)

/** The most characters of a capture's `sourceName`. */
export const MAX_SOURCE_NAME_LENGTH = 200
/** The most tags one capture may name. */
export const MAX_CAPTURE_TAGS = 50
/** The most characters of a `folderId` in a request body. */
export const MAX_FOLDER_ID_LENGTH = 100
const described = (description?: string) => (description === undefined ? {} : { description })

/**
 * The request fields REST bodies and MCP tool inputs (mcp/schemas.ts) share, each written once so their rules
 * cannot drift: test/mcp/shared-fields.test.ts sends both surfaces the same edge values. Each builds the
 * field's non-null schema, with the surface's own description; REST makes an optional one nullable, MCP
 * leaves it plainly optional. The URL and the folder name have no length rule here on purpose: core checks
 * them after the schema (MAX_URL_LENGTH; 1 to MAX_FOLDER_NAME_LENGTH after trimming) and answers
 * InvalidUrlError or InvalidFolderNameError (docs/api.md#limits), on both surfaces.
 */
export const Fields = {
  url: (description?: string) => t.String(described(description)),
  sourceName: (description?: string) => t.String({ maxLength: MAX_SOURCE_NAME_LENGTH, ...described(description) }),
  tags: (description?: string) => t.Array(Tag, { maxItems: MAX_CAPTURE_TAGS, ...described(description) }),
  folderId: (description?: string) => t.String({ maxLength: MAX_FOLDER_ID_LENGTH, ...described(description) }),
  captureChannel: (description?: string) => literals(CAPTURE_CHANNELS, description),
  html: (description: string) => t.String({ description }),
  folderName: (description?: string) => t.String(described(description)),
  // A highlight's passage and note (docs/highlights.md#limits): core checks the same lengths again, and
  // well-formed text, for every caller (core/highlights/highlight.ts).
  highlightExact: (description?: string) =>
    t.String({ minLength: 1, maxLength: MAX_EXACT_LENGTH, ...described(description) }),
  highlightNote: (description?: string) => t.String({ maxLength: MAX_NOTE_LENGTH, ...described(description) }),
}

const optionalText = t.Optional(nullable(t.String()))
export const SavedItem = t.Object(
  {
    id: t.String({ description: 'UUIDv7' }),
    originalUrl: t.String({ description: 'The URL as first captured' }),
    normalizedUrl: t.String({
      description: 'Canonical form used to recognise the same page (README: URL normalization)',
    }),
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
  },
  closed,
)

export const CaptureRequest = t.Object(
  {
    url: Fields.url(`http or https URL, at most ${MAX_URL_LENGTH} characters`),
    sourceName: t.Optional(nullable(Fields.sourceName())),
    captureChannel: t.Optional(nullable(Fields.captureChannel())),
    tags: t.Optional(nullable(Fields.tags())),
    folderId: t.Optional(nullable(Fields.folderId())),
    html: t.Optional(
      Fields.html(
        'The page as the browser rendered it (document.documentElement.outerHTML). Enrichment reads it instead of fetching the URL: no outbound request for this capture. Pages over 2 MiB are cut there; the request body may be up to 5 MiB.',
      ),
    ),
  },
  closed,
)

export const CaptureResponseCreated = t.Object(
  { savedItem: SavedItem, captureResult: t.Literal('created') },
  { ...closed, description: 'A new item was saved' },
)
export const CaptureResponseUpdated = t.Object(
  { savedItem: SavedItem, captureResult: t.Literal('updated') },
  { ...closed, description: 'The URL was already saved: the existing item, updated and back in the queue' },
)
export const SavedItemList = t.Object({ savedItems: t.Array(SavedItem) }, closed)
export const ListQuery = t.Object({
  sort: t.Optional(nullable(literals(SORTS, 'newest (default) | oldest | title | unread'))),
  folder: t.Optional(nullable(t.String({ description: 'A folder id, or "none" for items in no folder' }))),
  limit: t.Optional(t.String({ pattern: '^[0-9]+$', description: 'Page size 1–500; without it, all items' })),
  cursor: t.Optional(t.String({ description: 'From the `Link: rel="next"` header of the previous page' })),
})
export const ReadStateRequest = t.Object({ isRead: t.Boolean() }, closed)
export const SetFolderRequest = t.Object({ folderId: nullable(Fields.folderId()) }, closed)
export const SetTagsRequest = t.Object(
  {
    tags: Fields.tags(
      'The whole set of tags the item is to have (duplicates dropped); `[]` removes every tag. The same set in another order is no change.',
    ),
  },
  closed,
)
export const LookupQuery = t.Object({
  url: t.String({
    description:
      'The page address, as a browser shows it: normalized as a capture would be (docs/url-normalization.md) before the lookup',
  }),
})
const contentHead = {
  savedItemId: t.String(),
  title: nullable(t.String()),
  byline: nullable(t.String()),
  siteName: nullable(t.String()),
  lang: nullable(t.String({ description: "The page's language tag, e.g. `en` or `pt-BR`" })),
  // TypeBox's own integer: Elysia's `t.Integer` also admits numeric strings, as query strings need.
  wordCount: Type.Integer({ minimum: 0 }),
  readingMinutes: Type.Integer({ minimum: 1, description: 'ceil(wordCount / 230), at least 1' }),
  progress: t.Number({ minimum: 0, maximum: 1, description: 'How far the person has read, 0 to 1' }),
  extractedAt: t.String({ description: 'When the article was extracted (RFC 3339)' }),
}
export const HtmlContent = t.Object(
  {
    ...contentHead,
    html: t.String({ description: 'The article, sanitized to the allowlist of docs/reading.md#sanitizing' }),
    text: t.String({ description: 'The article as plain text, paragraphs separated by a blank line' }),
  },
  { ...closed, description: 'The article as sanitized HTML and plain text' },
)
export const MarkdownContent = t.Object(
  { ...contentHead, markdown: t.String({ description: 'The article as Markdown' }) },
  { ...closed, description: 'The article as Markdown (`?format=markdown`)' },
)
export const TextContent = t.Object(
  { ...contentHead, text: t.String({ description: 'The article as plain text' }) },
  { ...closed, description: 'The article as plain text' },
)
export const ContentQuery = t.Object({
  format: t.Optional(
    literals(['html', 'markdown'] as const, 'html (default): `html` and `text`; markdown: `markdown`'),
  ),
})
export const ProgressRequest = t.Object(
  { progress: t.Number({ minimum: 0, maximum: 1, description: '0 to 1; 1 also marks the item read' }) },
  closed,
)
export const ProgressResponse = t.Object(
  { savedItemId: t.String(), progress: t.Number({ minimum: 0, maximum: 1 }), updatedAt: t.String() },
  closed,
)
export const SearchQueryParams = t.Object({
  q: t.String({ description: 'The query: words, "phrases", -exclusions, OR, and filters (see the description)' }),
  limit: t.Optional(t.String({ pattern: '^[0-9]+$', description: 'Results per page, 1–100; default 20' })),
  cursor: t.Optional(t.String({ description: 'From the `Link: <…>; rel="next"` header of the previous page' })),
})
export const SearchResults = t.Object(
  {
    results: t.Array(
      t.Object(
        {
          savedItem: SavedItem,
          snippet: nullable(
            t.String({
              maxLength: 200,
              description: 'Plain text around the first match, matched words in « »; null for a filter-only query',
            }),
          ),
        },
        closed,
      ),
    ),
  },
  closed,
)
export const ChangesQuery = t.Object({
  since: t.Optional(t.String({ description: 'The `cursor` of the previous page; absent for the first reading' })),
})
export const FolderList = t.Object({ folders: t.Array(Folder) }, closed)
export const WebhookEventName = literals(WEBHOOK_EVENTS)
export const Webhook = t.Object(
  {
    id: t.String({ description: 'UUIDv7' }),
    url: t.String({ description: 'Where messages are POSTed' }),
    events: t.Array(WebhookEventName, { description: 'The subscribed event types, in canonical order' }),
    createdAt: t.String(),
    disabledAt: nullable(
      t.String({ description: 'When 20 failed deliveries in a row disabled it; null while it is enabled' }),
    ),
  },
  closed,
)
export const WebhookCreateRequest = t.Object(
  {
    url: t.String({ description: 'An absolute http(s) URL, at most 2,048 characters, no credentials or fragment' }),
    events: t.Array(t.String({ maxLength: 100 }), {
      maxItems: 50,
      description: `At least one of: ${WEBHOOK_EVENTS.join(', ')}`,
    }),
  },
  closed,
)
export const WebhookCreated = t.Object(
  {
    webhook: Webhook,
    secret: t.Union([t.String(), t.Null()], {
      description:
        'The signing secret (`whsec_` + base64), shown this once: keep it to verify signatures. Null in an `Idempotency-Key` replay (`Idempotent-Replayed: true`): a secret is never kept for replay',
    }),
  },
  closed,
)
export const WebhookList = t.Object({ webhooks: t.Array(Webhook) }, closed)
export const WebhookDelivery = t.Object(
  {
    id: t.String({ description: 'The message id, sent as `webhook-id` on every attempt' }),
    type: t.String({ description: 'The event type, or `webhook.test`' }),
    status: t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed')]),
    attempts: t.Integer({ description: 'Attempts made so far' }),
    createdAt: t.String(),
    lastAttemptAt: nullable(t.String()),
    nextAttemptAt: nullable(t.String({ description: 'When the next attempt is due, while pending' })),
    responseStatus: nullable(t.Integer({ description: "The receiver's HTTP status on the last attempt" })),
    error: nullable(t.String({ description: 'Why the last attempt failed' })),
  },
  closed,
)
export const WebhookDeliveryList = t.Object({ deliveries: t.Array(WebhookDelivery) }, closed)
export const WebhookTestResult = t.Object({ delivery: WebhookDelivery }, closed)
export const FolderNameRequest = t.Object({ name: Fields.folderName() }, closed)

// Highlights (docs/highlights.md). Lengths are UTF-16 code units, as `position` counts them; core checks the
// same rules again for every caller of the app layer (core/highlights/highlight.ts).
export const HighlightColor = literals(HIGHLIGHT_COLORS, "The mark's colour")
const offset = (description: string) => Type.Integer({ minimum: 0, description })
export const TextQuote = t.Object(
  {
    exact: t.String({ description: "The highlighted passage, exactly as in the article's `text`" }),
    prefix: t.String({
      description: `Up to ${CONTEXT_LENGTH} characters of \`text\` just before it ("" at the start)`,
    }),
    suffix: t.String({ description: `Up to ${CONTEXT_LENGTH} characters of \`text\` just after it ("" at the end)` }),
  },
  { ...closed, description: 'W3C TextQuoteSelector: the passage and its context' },
)
export const TextPosition = t.Object(
  {
    start: offset("UTF-16 offset into the article's `text` where the passage starts"),
    end: offset('UTF-16 offset where it ends (exclusive)'),
  },
  { ...closed, description: "W3C TextPositionSelector over the article's `text`" },
)
export const highlightFields = {
  id: t.String({ description: 'UUIDv7' }),
  savedItemId: t.String(),
  quote: TextQuote,
  position: nullable(TextPosition),
  color: HighlightColor,
  note: nullable(t.String()),
  createdAt: t.String({ description: 'RFC 3339 UTC with milliseconds' }),
  updatedAt: t.String({ description: 'RFC 3339 UTC with milliseconds' }),
}
export const Highlight = t.Object(highlightFields, {
  ...closed,
  description:
    "A passage of an item's article. `position` is null while the quote is not found in the current text (after the article was extracted again): the highlight keeps its quote and note",
})
export const HighlightResponse = t.Object({ highlight: Highlight }, closed)
export const HighlightList = t.Object({ highlights: t.Array(Highlight) }, closed)
export const HighlightedItem = t.Object(
  { id: t.String(), title: nullable(t.String()), normalizedUrl: t.String() },
  { ...closed, description: 'The item the highlight is on' },
)
export const ListedHighlight = t.Object({ ...highlightFields, savedItem: HighlightedItem }, closed)
export const ListedHighlightList = t.Object({ highlights: t.Array(ListedHighlight) }, closed)
const noteField = nullable(
  Fields.highlightNote(
    `Up to ${MAX_NOTE_LENGTH.toLocaleString('en-US')} characters; one blank after trimming is stored as null`,
  ),
)
export const HighlightCreateRequest = t.Object(
  {
    quote: t.Object(
      {
        exact: Fields.highlightExact(
          `The passage, 1 to ${MAX_EXACT_LENGTH.toLocaleString('en-US')} characters of the article's \`text\``,
        ),
        prefix: t.Optional(
          t.String({ maxLength: CONTEXT_LENGTH, description: 'Text just before it, to choose among repeats' }),
        ),
        suffix: t.Optional(
          t.String({ maxLength: CONTEXT_LENGTH, description: 'Text just after it, to choose among repeats' }),
        ),
      },
      closed,
    ),
    position: t.Optional(
      nullable(
        t.Object(
          { start: offset('Where the passage starts in `text`'), end: offset('Where it ends (exclusive)') },
          { ...closed, description: 'Where the client found it: used when `text` has `exact` exactly there' },
        ),
      ),
    ),
    color: t.Optional(nullable(literals(HIGHLIGHT_COLORS, 'Default yellow'))),
    note: t.Optional(noteField),
  },
  closed,
)
export const HighlightPatchRequest = t.Object(
  { color: t.Optional(HighlightColor), note: t.Optional(noteField) },
  { ...closed, minProperties: 1, description: 'At least one of the two; `note: null` clears the note' },
)
export const HighlightListQuery = t.Object({
  limit: t.Optional(t.String({ pattern: '^[0-9]+$', description: 'Page size 1–500; without it, all highlights' })),
  cursor: t.Optional(t.String({ description: 'From the `Link: <…>; rel="next"` header of the previous page' })),
})
// The changes feed (docs/api.md#changes); after the highlight schemas, whose entries it holds.
const kindAndId = { id: t.String() }
export const ChangesPage = t.Object(
  {
    changes: t.Array(
      t.Union([
        t.Object(
          { kind: t.Literal('saved-item'), ...kindAndId, op: t.Literal('upsert'), savedItem: SavedItem },
          closed,
        ),
        t.Object({ kind: t.Literal('folder'), ...kindAndId, op: t.Literal('upsert'), folder: Folder }, closed),
        t.Object({ kind: t.Literal('highlight'), ...kindAndId, op: t.Literal('upsert'), highlight: Highlight }, closed),
        t.Object(
          {
            kind: t.Union([t.Literal('saved-item'), t.Literal('folder'), t.Literal('highlight')]),
            ...kindAndId,
            op: t.Literal('delete'),
          },
          closed,
        ),
      ]),
    ),
    cursor: t.String({ description: 'Send it back as `since` for what changed after this page' }),
    hasMore: t.Boolean({ description: 'More changes are waiting now: ask again at once' }),
  },
  closed,
)
export const Health = t.Object({ ok: t.Boolean() }, closed)
export const Me = t.Object({ id: t.String(), email: t.String() }, closed)
export const IdParams = t.Object({ id: t.String() })

// Connect flow (docs/oauth.md#connect-flow). `client` and the scope values are plain strings, not enums: an unknown one is a
// value problem answered with a ConnectError code (docs/oauth.md#connect-flow), not a ValidationError.
const connectClientField = t.String({
  description: '`chrome-extension` or `raycast`; another value is ConnectError `unknown_client`',
})
export const ConnectAuthorizeRequest = t.Object(
  {
    client: connectClientField,
    redirectUri: t.String({
      description:
        'Where the client receives the code. chrome-extension: `https://<32 letters a–p>.chromiumapp.org/…` (chrome.identity.getRedirectURL()) or, in Firefox, `https://<40 lowercase hex digits>.extensions.allizom.org/…` (browser.identity.getRedirectURL()); raycast: `https://raycast.com/redirect…` or `raycast://…`. No fragment. Else ConnectError `invalid_redirect_uri`.',
    }),
    codeChallenge: t.String({
      pattern: CODE_CHALLENGE_PATTERN,
      description: 'BASE64URL(SHA-256(codeVerifier)) without padding (RFC 7636 S256): 43 characters',
    }),
    codeChallengeMethod: t.Literal('S256', { description: 'Only S256 is supported' }),
    scopes: t.Array(t.String(), {
      description:
        'Scopes for the key, at least one, each held by the credential making this call; else ConnectError `invalid_scope` (`offline_access` included: keys do not refresh)',
    }),
    label: t.String({
      description:
        'Names the key in settings: 1–100 characters after trimming surrounding whitespace, no control, invisible or bidirectional characters, at least one visible character',
    }),
    deviceHint: t.Optional(
      nullable(
        t.String({
          description:
            'Which device the key is for, shown in settings: at most 200 characters after trimming, the character rule of `label`',
        }),
      ),
    ),
  },
  closed,
)
export const ConnectAuthorizeResponse = t.Object(
  {
    code: t.String({
      description:
        'One-time code for POST /connect/exchange: single use, valid for 5 minutes. A secret; hand it only to the client.',
    }),
  },
  closed,
)
export const ConnectExchangeRequest = t.Object(
  {
    client: connectClientField,
    code: t.String({ description: 'The code from POST /connect/authorize' }),
    codeVerifier: t.String({
      description:
        'The PKCE verifier whose S256 challenge was sent to authorize (43–128 characters of A–Z a–z 0–9 - . _ ~)',
    }),
  },
  closed,
)
export const ConnectExchangeResponse = t.Object(
  {
    apiKey: t.String({
      description:
        'A personal API key (`rlk_…`) tied to the client and device hint. Shown once: store it, send it as `Authorization: Bearer <apiKey>`.',
    }),
    scopes: t.Array(Scope),
    label: t.String(),
  },
  closed,
)

const errorBody = (tag: string, fields: Record<string, TSchema> = {}) =>
  t.Object({ _tag: t.Literal(tag), message: t.String(), ...fields }, closed)
const wireField = (field: WireField): TSchema => (typeof field === 'string' ? t.String() : literals(field))

/** The body of every error type, built from core's one table of errors (APP_ERRORS), plus InternalError. */
export const Errors = {
  ...(Object.fromEntries(
    Object.entries(APP_ERRORS).map(([tag, entry]: [string, ErrorEntry]) => [
      tag,
      errorBody(
        tag,
        Object.fromEntries(Object.entries(entry.fields ?? {}).map(([name, field]) => [name, wireField(field)])),
      ),
    ]),
  ) as Record<AppErrorTag, ReturnType<typeof errorBody>>),
  [INTERNAL_ERROR._tag]: errorBody(INTERNAL_ERROR._tag),
}

/** Responses every authenticated operation can give besides its own (docs/api.md#errors). */
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

/** An import job (docs/import-export.md#imports). */
export const ImportDto = t.Object(
  {
    id: t.String(),
    format: literals(IMPORT_FORMATS),
    status: literals(['queued', 'running', 'done', 'failed'] as const),
    total: t.Integer({ description: 'Entries in the file' }),
    processed: t.Integer({ description: 'Entries handled so far (created + updated + skipped)' }),
    created: t.Integer(),
    updated: t.Integer({ description: 'Entries whose URL was already saved: merged into that item' }),
    skipped: t.Integer({ description: 'Entries that could not be imported (each listed in errors, up to 100)' }),
    folderNames: t.Array(t.String(), { description: 'Folders the import put items in, created or reused' }),
    droppedTags: t.Array(t.String(), { description: 'Tags of the file that match no tag value (not imported)' }),
    errors: t.Array(t.Object({ line: t.Integer(), message: t.String() }, closed), {
      description: 'The first 100 entries that could not be imported, with their line (or entry number)',
    }),
    createdAt: t.String(),
    finishedAt: t.Union([t.String(), t.Null()]),
  },
  closed,
)
export const ImportResponse = t.Object({ import: ImportDto }, closed)
export const ImportList = t.Object({ imports: t.Array(ImportDto) }, closed)
export const ImportQuery = t.Object(
  { format: t.Optional(t.String({ description: `One of ${IMPORT_FORMATS.join(', ')}; detected when absent` })) },
  closed,
)
export const ExportQuery = t.Object(
  {
    format: t.Optional(
      t.String({
        description:
          'json (default), netscape, csv, markdown (the highlights, a zip) or epub (a book of the articles of a folder, unread or all, at most 500 items)',
        enum: [...EXPORT_FORMATS],
      }),
    ),
    folder: t.Optional(
      t.String({
        description:
          "format=epub only: a folder id, or `none` for the items in no folder; absent, every folder. Another person's or an unknown folder is 404 FolderNotFoundError",
      }),
    ),
    state: t.Optional(
      t.String({
        description: 'format=epub only: `unread` (default), the items left to read, or `all`',
        enum: ['unread', 'all'],
      }),
    ),
  },
  closed,
)
