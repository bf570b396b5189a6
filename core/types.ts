/** Domain vocabulary: the enumerations of docs/api.md#endpoints and the records the core works with. */

export const TAGS = ['ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end'] as const
export type Tag = (typeof TAGS)[number]

export const CAPTURE_CHANNELS = [
  'chrome-extension',
  'ios-app',
  'ios-share-extension',
  'raycast',
  'web-companion',
  'api',
] as const
export type CaptureChannel = (typeof CAPTURE_CHANNELS)[number]

export const ITEM_TYPES = ['article', 'video', 'website', 'repository'] as const
export type ItemType = (typeof ITEM_TYPES)[number]

export const ENRICHMENT_STATUSES = ['pending', 'enriched', 'failed'] as const
export type EnrichmentStatus = (typeof ENRICHMENT_STATUSES)[number]

export const CONNECT_CLIENTS = ['chrome-extension', 'raycast'] as const
export type ConnectClient = (typeof CONNECT_CLIENTS)[number]

export const SCOPES = [
  'saved-items:capture',
  'saved-items:read',
  'saved-items:write',
  'saved-items:delete',
  'folders:read',
  'folders:write',
  'folders:delete',
  'account:read',
  'webhooks:manage',
] as const
export type Scope = (typeof SCOPES)[number]

export const SORTS = ['newest', 'oldest', 'title', 'unread'] as const
export type Sort = (typeof SORTS)[number]

export interface Folder {
  id: string
  name: string
}

export interface SavedItem {
  id: string
  userId: string
  originalUrl: string
  normalizedUrl: string
  host: string
  title: string | null
  description: string | null
  siteName: string | null
  faviconUrl: string | null
  faviconLightUrl: string | null
  faviconDarkUrl: string | null
  imageUrl: string | null
  canonicalUrl: string | null
  previewSummary: string | null
  type: ItemType
  tags: Tag[]
  enrichmentStatus: EnrichmentStatus
  sourceName: string | null
  captureChannel: CaptureChannel | null
  folder: Folder | null
  isRead: boolean
  openedAt: string | null
  lastSavedAt: string
  createdAt: string
  updatedAt: string
}

/** Who is calling and what they may do: the outcome of resolving any credential. */
export interface Principal {
  userId: string
  scopes: readonly Scope[]
  /** Stable id of the credential, used as the rate-limit bucket. */
  credentialId: string
  kind: 'api-key' | 'oauth' | 'session'
  /** The connect client an API key was issued to, if any (docs/api.md#captures default channel). */
  connectClient: ConnectClient | null
  /** Whether the OAuth grant behind the credential holds `offline_access` (it may refresh). */
  offlineAccess?: boolean
}

/** Injected time and randomness, so tests can freeze them. */
export interface Clock {
  now(): Date
}
export interface RandomSource {
  /** Fills and returns the given array with cryptographically strong random bytes. */
  fill(bytes: Uint8Array): Uint8Array
}
