// `readlater/core`: the pure domain, Web APIs only, the same on Bun, Deno, Node and in a browser
// (docs/embedding.md#the-package). What the service decides, usable without the service.

export { normalizeUrl, MAX_URL_LENGTH, type NormalizedUrl } from './url/normalize-url.ts'
export { prepareCapture, mergeRecapture, type CaptureInput, type PreparedCapture } from './items/capture.ts'
export { toSavedItemDto, type SavedItemDto } from './items/saved-item-dto.ts'
export { normalizeFolderName, MAX_FOLDER_NAME_LENGTH } from './folders/folder-name.ts'
export { isScope, hasScope, requireScope, requireScopes, parseScopeList } from './auth/scopes.ts'
export { SCOPE_DESCRIPTIONS } from './auth/scope-descriptions.ts'
export { calculatePkceS256Challenge, verifyPkceS256, isCodeVerifier, isS256CodeChallenge } from './oauth/pkce.ts'
export { parseQuery, type SearchQuery } from './search/query.ts'
export { readImportFile, parseImportFile, type ParseImportOptions } from './import/parse-import.ts'
export { WEBHOOK_EVENTS, type WebhookEvent, parseWebhookEvents, parseWebhookUrl } from './webhooks/events.ts'
export { RETRY_DELAYS_MS as WEBHOOK_RETRY_DELAYS_MS } from './webhooks/retry-schedule.ts'
export { uuidv7, isUuid } from './ids.ts'
export * from './errors.ts'
export {
  SCOPES,
  SORTS,
  TAGS,
  ITEM_TYPES,
  CAPTURE_CHANNELS,
  type Scope,
  type Sort,
  type Tag,
  type SavedItem,
  type Folder,
} from './types.ts'
