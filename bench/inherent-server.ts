/**
 * The inherent-work baseline (docs/benchmarks.md#method): a bare `Bun.serve` on the same database file doing
 * only what a list or a capture cannot do without, hand-written with bun:sqlite, at the same paths as the
 * service so one wrk scenario runs against either:
 *
 *   GET /v1/saved-items?limit=N   SHA-256 of the bearer key and one indexed lookup of it (scope checked), the
 *                                 same page query (newest first, folder name joined, one row past the page),
 *                                 rows shaped as the API's items, the next cursor and its Link header,
 *                                 JSON.stringify
 *   POST /v1/captures             the same key check, the JSON body read, the same URL normalization
 *                                 (core's prepareCapture), the same durable INSERT … ON CONFLICT (WAL,
 *                                 synchronous=NORMAL, one statement a request, the schema's own triggers
 *                                 firing), the item answered as JSON
 *
 * No router, no validation beyond what the work needs, no rate limit, no log, no request id: the floor a
 * service doing this work could reach on this runtime. DATABASE_FILE names the file.
 *
 * With LOAD_SERVICE=1 the same server also holds an idle instance of the service (`createReadlater`, every
 * module loaded, nothing served by it): the same work in a process of the service's size, which tells the
 * cost of the process's size apart from the cost of the service's own per-request work
 * (docs/benchmarks.md#the-uncached-list).
 */
import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { prepareCapture } from '../core/items/capture.ts'
import { uuidv7 } from '../core/ids.ts'
import { webRandom } from '../core/time.ts'

if (process.env.LOAD_SERVICE === '1') {
  const { createReadlater } = await import('../index.ts')
  const service = await createReadlater({
    databaseUrl: `file:${process.env.DATABASE_FILE}`,
    background: false,
    enrichment: false,
    logLevel: 'silent',
  })
  // Held for the life of the process, so its modules and state stay live in the heap as in the service's.
  ;(globalThis as { service?: unknown }).service = service
}

const db = new Database(process.env.DATABASE_FILE!)
db.exec('PRAGMA journal_mode=WAL')
db.exec('PRAGMA synchronous=NORMAL')
db.exec('PRAGMA busy_timeout=5000')
db.exec('PRAGMA foreign_keys=ON')

const keyOf = db.prepare<{ user_id: string; scopes: string; revoked_at: string | null }, [string]>(
  'SELECT user_id, scopes, revoked_at FROM api_keys WHERE key_hash = ?',
)
const page = db.prepare<Record<string, unknown>, [string, number]>(
  `SELECT s.*, f.name AS folder_name FROM saved_items s LEFT JOIN folders f ON f.id = s.folder_id
   WHERE s.user_id = ? ORDER BY s.last_saved_at DESC, s.id DESC LIMIT ?`,
)
const upsert = db.prepare<Record<string, unknown>, Record<string, string | number | null>>(
  `INSERT INTO saved_items (id, user_id, original_url, normalized_url, host, type, tags, enrichment_status,
     source_name, capture_channel, folder_id, is_read, last_saved_at, created_at, updated_at)
   VALUES ($id, $userId, $originalUrl, $normalizedUrl, $host, $type, $tags, 'pending', $sourceName, $channel,
     NULL, 0, $now, $now, $now)
   ON CONFLICT (user_id, normalized_url) DO UPDATE SET last_saved_at = excluded.last_saved_at,
     updated_at = excluded.updated_at, is_read = 0, source_name = coalesce(excluded.source_name, source_name),
     tags = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(saved_items.tags) UNION ALL
       SELECT value FROM json_each(excluded.tags) WHERE value NOT IN (SELECT value FROM json_each(saved_items.tags)))),
     enrichment_status = CASE enrichment_status WHEN 'failed' THEN 'pending' ELSE enrichment_status END
   RETURNING *`,
)

const json = { 'content-type': 'application/json' }
const refused = (status: number) => new Response('{"error":"refused"}', { status, headers: json })

/** The caller's person id, or null: the bearer key's SHA-256, one indexed lookup, the scope. */
function callerOf(request: Request, scope: string): string | null {
  const bearer = request.headers.get('authorization')
  if (!bearer?.startsWith('Bearer ')) return null
  const row = keyOf.get(createHash('sha256').update(bearer.slice(7)).digest('hex'))
  if (!row || row.revoked_at !== null || !(JSON.parse(row.scopes) as string[]).includes(scope)) return null
  return row.user_id
}

const item = (row: Record<string, unknown>) => ({
  id: row.id,
  originalUrl: row.original_url,
  normalizedUrl: row.normalized_url,
  host: row.host,
  title: row.title,
  description: row.description,
  siteName: row.site_name,
  faviconUrl: row.favicon_url,
  faviconLightUrl: row.favicon_light_url,
  faviconDarkUrl: row.favicon_dark_url,
  imageUrl: row.image_url,
  canonicalUrl: row.canonical_url,
  previewSummary: row.preview_summary,
  type: row.type,
  tags: JSON.parse(row.tags as string),
  enrichmentStatus: row.enrichment_status,
  sourceName: row.source_name,
  captureChannel: row.capture_channel,
  folder: row.folder_id === null ? null : { id: row.folder_id, name: row.folder_name ?? null },
  isRead: row.is_read === 1,
  lastSavedAt: row.last_saved_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

function list(request: Request, url: URL): Response {
  const userId = callerOf(request, 'saved-items:read')
  if (userId === null) return refused(401)
  const limit = Number(url.searchParams.get('limit') ?? 50)
  const rows = page.all(userId, limit + 1)
  const items = rows.slice(0, limit).map(item)
  const headers: Record<string, string> = { ...json }
  if (rows.length > limit) {
    const last = rows[limit - 1]!
    const cursor = Buffer.from(JSON.stringify(['newest', last.last_saved_at, last.id])).toString('base64url')
    headers.link = `<${url.origin}/v1/saved-items?sort=newest&limit=${limit}&cursor=${cursor}>; rel="next"`
  }
  return new Response(JSON.stringify({ savedItems: items }), { headers })
}

async function capture(request: Request): Promise<Response> {
  const userId = callerOf(request, 'saved-items:capture')
  if (userId === null) return refused(401)
  const input = (await request.json()) as { url: string; tags?: string[]; sourceName?: string }
  const now = new Date()
  const { row } = prepareCapture(input as never, {
    id: uuidv7(now.getTime(), webRandom),
    userId,
    now,
    connectClient: null,
  })
  const stored = upsert.get({
    $id: row.id,
    $userId: userId,
    $originalUrl: row.originalUrl,
    $normalizedUrl: row.normalizedUrl,
    $host: row.host,
    $type: row.type,
    $tags: JSON.stringify(row.tags),
    $sourceName: row.sourceName,
    $channel: row.captureChannel,
    $now: row.createdAt,
  })!
  const created = stored.id === row.id
  return new Response(JSON.stringify({ savedItem: item(stored), captureResult: created ? 'created' : 'updated' }), {
    status: created ? 201 : 200,
    headers: json,
  })
}

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  fetch(request) {
    const url = new URL(request.url)
    if (url.pathname === '/health') return new Response('ok')
    if (request.method === 'GET' && url.pathname === '/v1/saved-items') return list(request, url)
    if (request.method === 'POST' && url.pathname === '/v1/captures') return capture(request)
    return refused(404)
  },
})
