import { sql } from 'drizzle-orm'
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

// Timestamps are RFC 3339 UTC strings with milliseconds: fixed width, so text order is time order.

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: text('created_at').notNull(),
    /** The last time someone tried to sign up with this email: shown to the owner in settings (sign-up never tells the visitor). */
    signupAttemptedAt: text('signup_attempted_at'),
    /**
     * Bumped by triggers (migration 0004) on every change to the person's saved items or folders, by any
     * process: a cached page of their list is valid while it is unchanged (docs/benchmarks.md#list-page-cache).
     */
    itemsVersion: integer('items_version').notNull().default(0),
    highlightsVersion: integer('highlights_version').notNull().default(0),
  },
  (t) => [uniqueIndex('users_email_uq').on(t.email)],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    label: text('label').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    connectClient: text('connect_client'),
    deviceHint: text('device_hint'),
    /** A connect-issued key belongs to the credential that authorized it and is revoked with it (docs/security.md). */
    issuedByKeyId: text('issued_by_key_id'),
    issuedByGrantId: text('issued_by_grant_id'),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
    revokedAt: text('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_hash_uq').on(t.keyHash),
    index('api_keys_user_idx').on(t.userId),
    index('api_keys_issued_by_key_idx').on(t.issuedByKeyId),
    index('api_keys_issued_by_grant_idx').on(t.issuedByGrantId),
  ],
)

export const folders = sqliteTable(
  'folders',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('folders_user_name_uq').on(t.userId, t.nameKey)],
)

export const savedItems = sqliteTable(
  'saved_items',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    originalUrl: text('original_url').notNull(),
    normalizedUrl: text('normalized_url').notNull(),
    host: text('host').notNull(),
    title: text('title'),
    description: text('description'),
    siteName: text('site_name'),
    faviconUrl: text('favicon_url'),
    faviconLightUrl: text('favicon_light_url'),
    faviconDarkUrl: text('favicon_dark_url'),
    imageUrl: text('image_url'),
    canonicalUrl: text('canonical_url'),
    previewSummary: text('preview_summary'),
    type: text('type').notNull(),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    enrichmentStatus: text('enrichment_status').notNull(),
    sourceName: text('source_name'),
    captureChannel: text('capture_channel'),
    // Deleting a folder keeps its items (docs/api.md#folders): the reference becomes null.
    folderId: text('folder_id').references(() => folders.id, { onDelete: 'set null' }),
    isRead: integer('is_read', { mode: 'boolean' }).notNull(),
    openedAt: text('opened_at'),
    lastSavedAt: text('last_saved_at').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('saved_items_user_url_uq').on(t.userId, t.normalizedUrl),
    index('saved_items_user_saved_idx').on(t.userId, t.lastSavedAt, t.id),
    index('saved_items_user_folder_saved_idx').on(t.userId, t.folderId, t.lastSavedAt, t.id),
    index('saved_items_user_title_idx').on(t.userId, sql`lower(${t.title})`, t.id),
  ],
)

/** Scoped per credential (an API key, an OAuth grant, a web session); `user_id` lets account deletion find them. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    credentialId: text('credential_id').notNull(),
    userId: text('user_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state').$type<'in-flight' | 'done'>().notNull(),
    lockedAtMs: integer('locked_at_ms').notNull(),
    expiresAtMs: integer('expires_at_ms').notNull(),
    status: integer('status'),
    headers: text('headers', { mode: 'json' }).$type<[string, string][]>(),
    body: text('body'),
  },
  (t) => [
    primaryKey({ columns: [t.credentialId, t.key] }),
    index('idempotency_expires_idx').on(t.expiresAtMs),
    index('idempotency_user_idx').on(t.userId),
  ],
)

export const rateLimits = sqliteTable('rate_limits', {
  bucket: text('bucket').primaryKey(),
  windowStartMs: integer('window_start_ms').notNull(),
  count: integer('count').notNull(),
})

// ── Accounts, OAuth and connect (issue 3). Every secret (session token, code, refresh token) is stored
// only as its SHA-256 hex; the value itself exists only in the response that hands it out.

export const webSessions = sqliteTable(
  'web_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    /** Last request seen (written at most once a minute); a session idle past the limit ends. Null: never since creation. */
    lastSeenAt: text('last_seen_at'),
  },
  (t) => [index('web_sessions_user_idx').on(t.userId)],
)

export const oauthClients = sqliteTable('oauth_clients', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
  grantTypes: text('grant_types', { mode: 'json' }).$type<string[]>().notNull(),
  scope: text('scope'),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: text('created_at').notNull(),
})

/** One person's consent to one client: what codes, access and refresh tokens hang from. Revoking it ends them all. */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    resource: text('resource').notNull(),
    createdAt: text('created_at').notNull(),
    lastUsedAt: text('last_used_at'),
    revokedAt: text('revoked_at'),
  },
  (t) => [index('oauth_grants_user_idx').on(t.userId)],
)

export const oauthCodes = sqliteTable('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  grantId: text('grant_id')
    .notNull()
    .references(() => oauthGrants.id, { onDelete: 'cascade' }),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  expiresAt: text('expires_at').notNull(),
  usedAt: text('used_at'),
})

export const oauthRefreshTokens = sqliteTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    createdAt: text('created_at').notNull(),
    usedAt: text('used_at'),
  },
  (t) => [index('oauth_refresh_grant_idx').on(t.grantId)],
)

export const signingKeys = sqliteTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  privateJwk: text('private_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  publicJwk: text('public_jwk', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: text('created_at').notNull(),
  /** Set by `signing-key rotate`: no longer signs, still verifies until its last token has expired. */
  retiredAt: text('retired_at'),
})

export const connectCodes = sqliteTable('connect_codes', {
  codeHash: text('code_hash').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  client: text('client').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
  label: text('label').notNull(),
  deviceHint: text('device_hint'),
  issuedByKeyId: text('issued_by_key_id'),
  issuedByGrantId: text('issued_by_grant_id'),
  expiresAt: text('expires_at').notNull(),
  usedAt: text('used_at'),
})

/**
 * The enrichment queue (docs/enrichment.md): at most one job per item. Rows are added by triggers on saved_items
 * (see the 0002 migration), so a capture and its job commit in the same statement. A worker claims a due
 * job by setting `lease_until`; a crashed worker's lease runs out and another process takes the job over.
 */
export const enrichmentJobs = sqliteTable(
  'enrichment_jobs',
  {
    itemId: text('item_id')
      .primaryKey()
      .references(() => savedItems.id, { onDelete: 'cascade' }),
    /** Attempts started, counted when claimed (a crash mid-attempt uses one up). */
    attempts: integer('attempts').notNull(),
    /** Not before this time (epoch ms); 0 means as soon as possible. */
    runAfterMs: integer('run_after_ms').notNull(),
    /** Claimed until this time (epoch ms); null when nobody holds it. */
    leaseUntilMs: integer('lease_until_ms'),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    /**
     * 0 for captures (live work), 1 for backfills, 2 for imported items: a claim takes every due 0 before
     * any 1, and any 1 before any 2 (docs/import-export.md#enrichment).
     */
    priority: integer('priority').notNull().default(0),
    /** The item's host, for imported items: no more than 2 of them are fetched from one host at once. */
    host: text('host'),
  },
  (t) => [
    index('enrichment_jobs_due_idx').on(t.priority, t.runAfterMs),
    index('enrichment_jobs_host_idx').on(t.host, t.leaseUntilMs),
  ],
)

/**
 * An item's readable article (docs/reading.md#content), apart from the item row so lists never read it.
 * Replaced whole by each extraction; gone with its item.
 */
export const itemContents = sqliteTable('item_contents', {
  itemId: text('item_id')
    .primaryKey()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
  title: text('title'),
  byline: text('byline'),
  siteName: text('site_name'),
  lang: text('lang'),
  wordCount: integer('word_count').notNull(),
  /** Sanitized (docs/reading.md#sanitizing), at most 1 MiB. */
  html: text('html').notNull(),
  text: text('text').notNull(),
  extractedAt: text('extracted_at').notNull(),
})

/** How far the person has read an item, 0 to 1; kept when the content is extracted again. */
export const readingProgress = sqliteTable('reading_progress', {
  itemId: text('item_id')
    .primaryKey()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
  progress: real('progress').notNull(),
  updatedAt: text('updated_at').notNull(),
})

/**
 * A page as the person's browser rendered it, sent with a capture (`html`): enrichment reads it instead of
 * fetching the URL, then drops it.
 */
export const capturedPages = sqliteTable('captured_pages', {
  itemId: text('item_id')
    .primaryKey()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
  html: text('html').notNull(),
  capturedAt: text('captured_at').notNull(),
})

/**
 * Each person's range of the full-text index's document numbers (docs/search.md#index): a person's items
 * are numbered from `slot << 32`, so a search reads only that range of the index. Slots are never reused.
 */
export const searchOwners = sqliteTable('search_owners', {
  slot: integer('slot').primaryKey({ autoIncrement: true }),
  userId: text('user_id')
    .notNull()
    .unique()
    .references(() => users.id, { onDelete: 'cascade' }),
})

/**
 * The full-text index's document numbers (docs/search.md#index): one per indexed item, in its owner's
 * range. The index (`search_index`, an FTS5 table the 0008 migration creates; triggers from 0006) is
 * keyed by `doc`, an integer primary key, so its rows survive VACUUM (which may renumber an implicit rowid).
 */
export const searchDocs = sqliteTable('search_docs', {
  doc: integer('doc').primaryKey(),
  itemId: text('item_id')
    .notNull()
    .unique()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
})

/**
 * Imports (docs/import-export.md#jobs): the uploaded file is kept until the job is done, and the job's
 * progress (entries processed, counts, errors) is written in the same transaction as each batch of
 * entries, so a crash resumes after the last committed batch, every entry applied once.
 */
export const imports = sqliteTable(
  'imports',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    format: text('format').notNull(),
    status: text('status').$type<'queued' | 'running' | 'done' | 'failed'>().notNull(),
    total: integer('total').notNull(),
    processed: integer('processed').notNull(),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
    skipped: integer('skipped').notNull(),
    folderNames: text('folder_names', { mode: 'json' }).$type<string[]>().notNull(),
    droppedTags: text('dropped_tags', { mode: 'json' }).$type<string[]>().notNull(),
    errors: text('errors', { mode: 'json' }).$type<{ line: number; message: string }[]>().notNull(),
    /** Why the job failed, when it did (a file the job could not read again). */
    failure: text('failure'),
    /** Held by a worker until this time (epoch ms); null when nobody holds it. */
    leaseUntilMs: integer('lease_until_ms'),
    createdAt: text('created_at').notNull(),
    finishedAt: text('finished_at'),
  },
  (t) => [index('imports_user_created_idx').on(t.userId, t.createdAt), index('imports_status_idx').on(t.status)],
)

/**
 * An import's file as uploaded, until its job ends. Apart from `imports` because SQLite rewrites a whole
 * row on UPDATE, overflow pages included: each batch's progress would otherwise copy the file (up to
 * 50 MiB) into the WAL again.
 */
export const importFiles = sqliteTable('import_files', {
  importId: text('import_id')
    .primaryKey()
    .references(() => imports.id, { onDelete: 'cascade' }),
  file: blob('file', { mode: 'buffer' }).notNull(),
})

/**
 * An item deleted from the web queue, kept whole for its "Undo" (docs/web.md#queue): the item row, its
 * article and its reading position as JSON, for 10 minutes (maintenance prunes older copies; restoring
 * checks the window itself). Gone with the person.
 */
export const deletedItems = sqliteTable(
  'deleted_items',
  {
    itemId: text('item_id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    snapshot: text('snapshot').notNull(),
    deletedAtMs: integer('deleted_at_ms').notNull(),
  },
  (t) => [index('deleted_items_deleted_idx').on(t.deletedAtMs)],
)

/**
 * The changes feed's log (docs/api.md#changes): one row per change of an item or folder, appended by
 * triggers on `saved_items` and `folders` (the 0011 migration) in the transaction of the change itself, so
 * no write path can forget it. `seq` orders every change (SQLite has one writer at a time, so a change
 * committed later always has a higher `seq`); the feed reads each entity's state at read time. Rows
 * older than 30 days are pruned by maintenance, which records the newest pruned `seq` per person in
 * `changes_pruned`: a cursor before it is expired.
 */
export const changes = sqliteTable(
  'changes',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    userId: text('user_id').notNull(),
    kind: text('kind').notNull(),
    entityId: text('entity_id').notNull(),
    op: text('op').notNull(),
    atMs: integer('at_ms').notNull(),
  },
  (t) => [index('changes_user_seq_idx').on(t.userId, t.seq)],
)

export const changesPruned = sqliteTable('changes_pruned', {
  userId: text('user_id').primaryKey(),
  seq: integer('seq').notNull(),
})

/**
 * A person's webhooks (docs/webhooks.md). The signing secret is needed to sign, so it cannot be hashed: with
 * ENCRYPTION_KEY set it is stored encrypted (`enc:` + a compact JWE), otherwise as issued. `events` is the
 * JSON array of subscribed event types; the outbox triggers match a type by its quoted name in it.
 */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').notNull(),
    secret: text('secret').notNull(),
    createdAt: text('created_at').notNull(),
    disabledAt: text('disabled_at'),
    /** Deliveries failed in a row (a success resets it); 20 disable the webhook. */
    failuresInRow: integer('failures_in_row').notNull().default(0),
  },
  (t) => [index('webhooks_user_idx').on(t.userId, t.createdAt)],
)

/**
 * The webhook outbox (docs/webhooks.md#delivery): one row per message to one webhook, inserted by triggers
 * on `saved_items` and `folders` (the 0012 migration) in the transaction of the change. Workers claim due rows with a lease, as enrichment does; a row stays after its last
 * attempt (`delivered` or `failed`) for the settings page's history, pruned after 7 days.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** The `webhook-id` header: the same on every attempt of this message. */
    id: text('id').notNull(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    /** The item or folder the event is about: messages about one entity go out in order. */
    entityId: text('entity_id').notNull(),
    /**
     * The body as signed. Null for a message about an item until its first attempt, which writes the item as
     * it is then (or a delete writes it as it was): a capture writes a short row, and every attempt of a
     * message sends the same bytes.
     */
    body: text('body'),
    status: text('status').notNull(),
    /** Attempts started, counted when claimed. */
    attempts: integer('attempts').notNull().default(0),
    runAfterMs: integer('run_after_ms').notNull(),
    leaseUntilMs: integer('lease_until_ms'),
    createdAtMs: integer('created_at_ms').notNull(),
    lastAttemptAtMs: integer('last_attempt_at_ms'),
    /** The receiver's HTTP status on the last attempt; null when none answered. */
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    finishedAtMs: integer('finished_at_ms'),
  },
  (t) => [
    // A webhook's due messages, oldest first: the claim reads the head of each webhook's queue.
    index('webhook_deliveries_queue_idx').on(t.webhookId, t.runAfterMs, t.seq).where(sql`status = 'pending'`),
    index('webhook_deliveries_entity_idx').on(t.webhookId, t.entityId, t.seq).where(sql`status = 'pending'`),
    // Only messages in flight: a new message (no lease yet) adds no entry.
    index('webhook_deliveries_lease_idx')
      .on(t.webhookId, t.leaseUntilMs)
      .where(sql`status = 'pending' AND lease_until_ms IS NOT NULL`),
    // Finished messages only, for the history: a capture's message enters it when it is settled, not before.
    index('webhook_deliveries_history_idx').on(t.webhookId, t.seq).where(sql`status != 'pending'`),
    // Pending rows (finished_at_ms null) stay out of it: a capture writes one entry fewer.
    index('webhook_deliveries_finished_idx').on(t.finishedAtMs).where(sql`finished_at_ms IS NOT NULL`),
  ],
)

/**
 * Highlights (docs/highlights.md): a passage of an item's article `text`, as a W3C TextQuoteSelector
 * (`exact`, `prefix`, `suffix`) and TextPositionSelector (`start`, `end`: UTF-16 offsets, end exclusive; both
 * null while the quote is not found in the current text). Gone with the item or the person. `user_id` is the
 * item's owner, kept here so a person's highlights are listed without reading their items.
 */
export const highlights = sqliteTable(
  'highlights',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    savedItemId: text('saved_item_id')
      .notNull()
      .references(() => savedItems.id, { onDelete: 'cascade' }),
    exact: text('exact').notNull(),
    prefix: text('prefix').notNull(),
    suffix: text('suffix').notNull(),
    start: integer('start'),
    end: integer('end'),
    color: text('color').notNull(),
    note: text('note'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // An item's highlights in text order (orphans, start null, come first in it and are moved last by the
    // reader), and the cascade from saved_items.
    index('highlights_item_text_idx').on(t.savedItemId, t.start, t.end, t.createdAt, t.id),
    // A person's highlights newest first (scanned backwards), and the cascade from users.
    index('highlights_user_created_idx').on(t.userId, t.createdAt, t.id),
    // A person's highlights by id: the changes feed's snapshot pages them in that order (docs/api.md#changes).
    index('highlights_user_id_idx').on(t.userId, t.id),
  ],
)

/**
 * A version of each item's highlights: a random value, new with every highlight added, changed or deleted
 * (triggers of migration 0016, whoever writes), read with one primary-key lookup. The reader view keeps an
 * item's marked article while it is the same (docs/highlights.md#web). Random, not a counter, so an item
 * deleted and brought back by Undo (its row gone with it, then written again) never repeats an old value.
 */
export const highlightVersions = sqliteTable('highlight_versions', {
  savedItemId: text('saved_item_id')
    .primaryKey()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
  version: text('version').notNull(),
})

/**
 * An article's images, archived by enrichment (docs/reading.md#archived-images) and served from our origin
 * at `{APP_URL}/items/{item_id}/images/{n}`, apart from the item row and its article so no list or article
 * read ever touches the bytes. `n` numbers an item's images 1, 2, 3… in the order its article first showed
 * them; an image that a later extraction finds again keeps its number and bytes, a new one takes the next
 * number, so a URL never answers other bytes (it is served as immutable). The blob is the last column:
 * reading the others never loads its pages. Gone with the item (or the person); `user_id` is the item's
 * owner, kept here so a person's storage is one index sum.
 */
export const itemImages = sqliteTable(
  'item_images',
  {
    itemId: text('item_id')
      .notNull()
      .references(() => savedItems.id, { onDelete: 'cascade' }),
    n: integer('n').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    originalUrl: text('original_url').notNull(),
    /** Sniffed from the bytes: image/png, image/jpeg, image/gif, image/webp or image/avif. */
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    createdAt: text('created_at').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.itemId, t.n] }), index('item_images_user_size_idx').on(t.userId, t.size)],
)

/**
 * The highest image number an item has ever used (docs/reading.md#archived-images): an image's address is
 * cached as immutable, so a number is never given to another picture, even after every image of the item
 * went (an extraction that kept none) or the item was deleted and restored by its Undo (the number travels
 * in the copy's snapshot).
 */
export const itemImageNumbers = sqliteTable('item_image_numbers', {
  itemId: text('item_id')
    .primaryKey()
    .references(() => savedItems.id, { onDelete: 'cascade' }),
  lastN: integer('last_n').notNull(),
})

/**
 * The archived images of an item deleted from the web queue, kept with its copy in `deleted_items` for its
 * "Undo" (docs/web.md#queue) and gone with that copy (pruned after the undo window, or restored).
 */
export const deletedItemImages = sqliteTable(
  'deleted_item_images',
  {
    itemId: text('item_id')
      .notNull()
      .references(() => deletedItems.itemId, { onDelete: 'cascade' }),
    n: integer('n').notNull(),
    userId: text('user_id').notNull(),
    originalUrl: text('original_url').notNull(),
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    createdAt: text('created_at').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.itemId, t.n] })],
)
