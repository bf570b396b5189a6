import type { CaptureChannel, ConnectClient, ItemType, Tag } from '../types.ts'
import { normalizeUrl } from '../url/normalize-url.ts'
import { guessItemType } from '../url/guess-type.ts'
import { toTimestamp } from '../time.ts'

export interface CaptureInput {
  url: string
  sourceName?: string | null
  captureChannel?: CaptureChannel | null
  tags?: readonly Tag[] | null
  folderId?: string | null
  /** The page as the browser rendered it (docs/reading.md#page-capture); not part of the item row. */
  html?: string
}

/** The row a first capture inserts; a recapture merges into the stored row instead (the merge rules: docs/api.md#captures). */
export interface NewSavedItemRow {
  id: string
  userId: string
  originalUrl: string
  normalizedUrl: string
  host: string
  type: ItemType
  tags: Tag[]
  enrichmentStatus: 'pending'
  sourceName: string | null
  captureChannel: CaptureChannel
  folderId: string | null
  isRead: false
  lastSavedAt: string
  createdAt: string
  updatedAt: string
}

export interface PreparedCapture {
  row: NewSavedItemRow
  /** The channel the caller named, if any: a recapture only replaces the stored channel with this. */
  explicitChannel: CaptureChannel | null
}

/**
 * Validates and normalizes a capture into the row a first save would insert (docs/api.md#captures).
 * Throws InvalidUrlError for a URL that is not absolute http(s).
 */
export function prepareCapture(
  input: CaptureInput,
  context: { id: string; userId: string; now: Date; connectClient: ConnectClient | null },
): PreparedCapture {
  const url = normalizeUrl(input.url)
  const now = toTimestamp(context.now)
  const explicitChannel = input.captureChannel ?? null
  return {
    explicitChannel,
    row: {
      id: context.id,
      userId: context.userId,
      originalUrl: url.originalUrl,
      normalizedUrl: url.normalizedUrl,
      host: url.host,
      type: guessItemType(url.normalizedUrl),
      tags: [...new Set(input.tags ?? [])],
      enrichmentStatus: 'pending',
      sourceName: input.sourceName ?? null,
      // A key issued through the connect flow speaks for its client; anything else is a plain API call.
      captureChannel: explicitChannel ?? context.connectClient ?? 'api',
      folderId: input.folderId ?? null,
      isRead: false,
      lastSavedAt: now,
      createdAt: now,
      updatedAt: now,
    },
  }
}

/** What a recapture may change on the stored item. */
export interface RecaptureFields {
  sourceName: string | null
  captureChannel: CaptureChannel | null
  tags: Tag[]
  folderId: string | null
  isRead: boolean
  enrichmentStatus: string
  lastSavedAt: string
  updatedAt: string
}

/**
 * The recapture merge (docs/api.md#captures): a capture of a URL the person already saved puts the item
 * back in the unread queue as saved now; it keeps the stored source, channel and folder unless the
 * capture names new ones, appends the tags not yet there (stored order first), and gives a failed
 * enrichment another try. Storage applies this rule in its one-statement upsert
 * (adapters/storage/saved-items.ts); test/storage/protocol-ports.test.ts holds every driver to it. The two
 * are speed twins on purpose: the rule here, one statement there (docs/benchmarks.md#speed-twins).
 */
export function mergeRecapture(stored: RecaptureFields, capture: PreparedCapture): RecaptureFields {
  const { row, explicitChannel } = capture
  return {
    sourceName: row.sourceName ?? stored.sourceName,
    captureChannel: explicitChannel ?? stored.captureChannel,
    tags: [...stored.tags, ...row.tags.filter((tag) => !stored.tags.includes(tag))],
    folderId: row.folderId ?? stored.folderId,
    isRead: false,
    enrichmentStatus: stored.enrichmentStatus === 'failed' ? 'pending' : stored.enrichmentStatus,
    lastSavedAt: row.lastSavedAt,
    updatedAt: row.updatedAt,
  }
}
