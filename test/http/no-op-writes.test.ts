import { describe, expect, test } from 'bun:test'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'
import { signedInWithKey } from '../web/fixtures.ts'
import type { WebClient } from '../web/web-client.ts'
import { WEBHOOK_EVENTS } from '../../core/webhooks/events.ts'

// docs/api.md#no-op-writes: any change bumps `updatedAt`; a request that changes nothing does not, and so
// writes no entry of the changes feed (docs/api.md#changes) and no webhook message (docs/webhooks.md#events).
// Every write path that can be asked to set what is already there, over REST, MCP and the web pages, each
// beside a real change of the same kind (so a case cannot pass by writing nothing at all).

interface World {
  h: Harness
  key: string
  web: WebClient
  api(method: string, path: string, body?: unknown): Promise<any>
  mcp(tool: string, args: Record<string, unknown>): Promise<any>
  item(options?: { read?: boolean; folderId?: string }): Promise<string>
  folder(name: string): Promise<string>
  /** A highlight (with these fields) on a new item that has an article. */
  highlight(fields?: { color?: string; note?: string }): Promise<string>
  importFile(csv: string): Promise<void>
}

async function world(): Promise<World> {
  const h = await createHarness({ env: { RATE_LIMIT_MAX: '1000000', IP_RATE_LIMIT_MAX: '1000000' } })
  const { web, key } = await signedInWithKey(`no-op-${crypto.randomUUID()}@example.com`, h)
  const api = async (method: string, path: string, body?: unknown) => {
    const reply = await h.call(method, path, { token: key, ...(body === undefined ? {} : { body }) })
    expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300)
    return reply.body
  }
  // A webhook for every event, so the outbox triggers would write a message for any change.
  await api('POST', '/v1/webhooks', {
    url: 'https://hooks.example.com/in',
    events: [...WEBHOOK_EVENTS],
  })
  let items = 0
  const w: World = {
    h,
    key,
    web,
    api,
    async mcp(tool, args) {
      const reply = await h.call('POST', '/mcp', {
        token: key,
        raw: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        unchecked: true,
      })
      expect(reply.status).toBe(200)
      expect(reply.body.result.isError, reply.text).toBeUndefined()
      return reply.body.result.structuredContent
    },
    async item(options = {}) {
      const body = await api('POST', '/v1/captures', {
        url: `https://no-op.example/${++items}`,
        ...(options.folderId ? { folderId: options.folderId } : {}),
      })
      if (options.read) await api('POST', `/v1/saved-items/${body.savedItem.id}/read`)
      return body.savedItem.id
    },
    async folder(name) {
      return (await api('POST', '/v1/folders', { name })).id
    },
    async highlight(fields = {}) {
      const item = await w.item()
      await h.db.$client.execute({
        sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 2, '<p>Kept words</p>', 'Kept words', ?)",
        args: [item, h.clock.now().toISOString()],
      })
      return (await api('POST', `/v1/saved-items/${item}/highlights`, { quote: { exact: 'Kept' }, ...fields }))
        .highlight.id
    },
    async importFile(csv) {
      const reply = await h.call('POST', '/v1/imports', {
        token: key,
        raw: csv,
        headers: { 'content-type': 'text/csv' },
      })
      expect(reply.status).toBe(202)
      await startImportWorker(
        { db: h.db, clock: h.clock, random, log: () => {} },
        { batchSize: 10, pollMs: 10, leaseMs: 10_000 },
        false,
      ).drain()
      const job = await api('GET', `/v1/imports/${reply.body.import.id}`)
      expect(job.import.status).toBe('done')
    },
  }
  return w
}

/** What a write may leave behind: the rows' own times, the feed's cursor, the outbox's rows. */
interface Observed {
  updatedAt: Record<string, string | null>
  cursor: string
  outbox: number
}

async function cursorNow(w: World): Promise<string> {
  let cursor: string | undefined
  for (;;) {
    const page = await w.api('GET', `/v1/changes${cursor === undefined ? '' : `?since=${encodeURIComponent(cursor)}`}`)
    cursor = page.cursor as string
    if (!page.hasMore) return cursor
  }
}

async function observe(w: World, ids: Record<string, string>): Promise<Observed> {
  const updatedAt: Record<string, string | null> = {}
  for (const [name, id] of Object.entries(ids)) {
    const table = name.startsWith('folder')
      ? 'folders'
      : name.startsWith('progress')
        ? 'reading_progress'
        : name.startsWith('highlight')
          ? 'highlights'
          : 'saved_items'
    const column = table === 'reading_progress' ? 'item_id' : 'id'
    const { rows } = await w.h.db.$client.execute({
      sql: `SELECT updated_at FROM ${table} WHERE ${column} = ?`,
      args: [id],
    })
    updatedAt[name] = rows[0] ? String(rows[0].updated_at) : null
  }
  const { rows } = await w.h.db.$client.execute('SELECT count(*) AS n FROM webhook_deliveries')
  return { updatedAt, cursor: await cursorNow(w), outbox: Number(rows[0]!.n) }
}

async function newSince(w: World, before: Observed) {
  const page = await w.api('GET', `/v1/changes?since=${encodeURIComponent(before.cursor)}`)
  const { rows } = await w.h.db.$client.execute({
    sql: 'SELECT type, entity_id FROM webhook_deliveries ORDER BY seq LIMIT -1 OFFSET ?',
    args: [before.outbox],
  })
  return {
    feed: (page.changes as any[]).map((change) => `${change.kind}:${change.op}:${change.id}`),
    outbox: rows.map((row) => `${row.type}:${row.entity_id}`),
  }
}

interface Case {
  name: string
  /** Makes what the request finds; returns the rows it touches: `item…`, `folder…` or `progress…` ids. */
  setup(w: World): Promise<Record<string, string>>
  act(w: World, ids: Record<string, string>): Promise<unknown>
  /** null: a no-op. Else which rows' `updatedAt` become now, and the feed entries and webhook messages it writes. */
  change: null | { updated: string[]; feed: string[]; outbox: string[] }
}

const itemChange = (updated = ['item']) => ({
  updated,
  feed: ['saved-item:upsert:item'],
  outbox: ['saved_item.updated:item'],
})
const folderChange = { updated: ['folder'], feed: ['folder:upsert:folder'], outbox: ['folder.updated:folder'] }
const progressOnly = { updated: ['progress'], feed: [], outbox: [] }
const highlightChange = {
  updated: ['highlight'],
  feed: ['highlight:upsert:highlight'],
  outbox: ['highlight.updated:highlight'],
}

const POCKET = 'title,url,time_added,tags,status\nImported,https://no-op.example/imported,1700000000,ai,archive\n'

const CASES: Case[] = [
  // REST: read state
  {
    name: 'POST …/read on a read item',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/read`),
    change: null,
  },
  {
    name: 'POST …/read on an unread item (a change)',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/read`),
    change: itemChange(),
  },
  {
    name: 'POST …/unread on an unread item',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/unread`),
    change: null,
  },
  {
    name: 'POST …/unread on a read item (a change)',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/unread`),
    change: itemChange(),
  },
  {
    name: 'POST …/read-state with the state the item has',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/read-state`, { isRead: true }),
    change: null,
  },
  {
    name: 'POST …/read-state false on an unread item',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/read-state`, { isRead: false }),
    change: null,
  },
  // REST: open (docs/api.md#lists: `openedAt` is not part of the item, so opening a read item changes nothing)
  {
    name: 'POST …/open on a read item',
    setup: async (w) => {
      const item = await w.item({ read: true })
      await w.api('POST', `/v1/saved-items/${item}/open`)
      return { item }
    },
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/open`),
    change: null,
  },
  {
    name: 'POST …/open on an unread item (a change: it becomes read)',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('POST', `/v1/saved-items/${item}/open`),
    change: itemChange(),
  },
  // REST: folders of items
  {
    name: 'PUT …/folder with the folder the item is in',
    setup: async (w) => {
      const folder = await w.folder(`Same ${crypto.randomUUID()}`)
      return { item: await w.item({ folderId: folder }), folder }
    },
    act: (w, { item, folder }) => w.api('PUT', `/v1/saved-items/${item}/folder`, { folderId: folder }),
    change: null,
  },
  {
    name: 'PUT …/folder with another folder (a change)',
    setup: async (w) => {
      const folder = await w.folder(`From ${crypto.randomUUID()}`)
      const folderOther = await w.folder(`To ${crypto.randomUUID()}`)
      return { item: await w.item({ folderId: folder }), folderOther }
    },
    act: (w, { item, folderOther }) => w.api('PUT', `/v1/saved-items/${item}/folder`, { folderId: folderOther }),
    change: itemChange(),
  },
  {
    name: 'PUT …/folder null on an item in no folder',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/folder`, { folderId: null }),
    change: null,
  },
  // REST: tags (docs/api.md#tags: a set, so another order of the same tags is no change)
  {
    name: 'PUT …/tags with the same tags in another order',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/tags`, { tags: ['ai', 'design'] })
      return { item }
    },
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/tags`, { tags: ['design', 'ai', 'design'] }),
    change: null,
  },
  {
    name: 'PUT …/tags [] on an item without tags',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/tags`, { tags: [] }),
    change: null,
  },
  {
    name: 'PUT …/tags taking one away (a change)',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/tags`, { tags: ['ai', 'design'] })
      return { item }
    },
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/tags`, { tags: ['ai'] }),
    change: itemChange(),
  },
  {
    name: 'PUT …/folder null on an item in a folder (a change)',
    setup: async (w) => ({ item: await w.item({ folderId: await w.folder(`Out ${crypto.randomUUID()}`) }) }),
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/folder`, { folderId: null }),
    change: itemChange(),
  },
  // REST: progress (its own `updatedAt`; progress is not part of the item, so never in the feed or a webhook)
  {
    name: 'PUT …/progress with the progress the item has',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.42 })
      return { item, progress: item }
    },
    act: async (w, { item }) => {
      const body = await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.42 })
      // The answer's `updatedAt` is the stored one, not now.
      expect(body.updatedAt).not.toBe(w.h.clock.now().toISOString())
    },
    change: null,
  },
  {
    name: 'PUT …/progress with another progress (a change of the progress only)',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.42 })
      return { item, progress: item }
    },
    act: async (w, { item }) => {
      const body = await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.5 })
      expect(body.updatedAt).toBe(w.h.clock.now().toISOString())
    },
    change: progressOnly,
  },
  {
    name: 'PUT …/progress 1 again on a finished item',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 1 })
      return { item, progress: item }
    },
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 1 }),
    change: null,
  },
  {
    name: 'PUT …/progress 1 on an unread item (a change: it becomes read)',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.9 })
      return { item, progress: item }
    },
    act: (w, { item }) => w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 1 }),
    change: itemChange(['item', 'progress']),
  },
  // REST: folder names
  {
    name: 'PATCH /v1/folders/{id} with its exact name',
    setup: async (w) => ({ folder: await w.folder('Reading list') }),
    act: (w, { folder }) => w.api('PATCH', `/v1/folders/${folder}`, { name: 'Reading list' }),
    change: null,
  },
  {
    name: 'PATCH /v1/folders/{id} with its name padded (stored trimmed: the same name)',
    setup: async (w) => ({ folder: await w.folder('Padded') }),
    act: (w, { folder }) => w.api('PATCH', `/v1/folders/${folder}`, { name: '  Padded ' }),
    change: null,
  },
  {
    name: 'PATCH /v1/folders/{id} with a change of case (a change)',
    setup: async (w) => ({ folder: await w.folder('Case matters') }),
    act: (w, { folder }) => w.api('PATCH', `/v1/folders/${folder}`, { name: 'case matters' }),
    change: folderChange,
  },
  // REST: highlights (docs/highlights.md#endpoints: a patch that changes nothing writes nothing)
  {
    name: 'PATCH /v1/highlights/{id} with the colour it has',
    setup: async (w) => ({ highlight: await w.highlight({ color: 'green' }) }),
    act: (w, { highlight }) => w.api('PATCH', `/v1/highlights/${highlight}`, { color: 'green' }),
    change: null,
  },
  {
    name: 'PATCH /v1/highlights/{id} with the note it has, and its colour',
    setup: async (w) => ({ highlight: await w.highlight({ note: 'Same note' }) }),
    act: (w, { highlight }) => w.api('PATCH', `/v1/highlights/${highlight}`, { note: 'Same note', color: 'yellow' }),
    change: null,
  },
  {
    name: 'PATCH /v1/highlights/{id} with note null (or blank) on a highlight without one',
    setup: async (w) => ({ highlight: await w.highlight() }),
    act: async (w, { highlight }) => {
      await w.api('PATCH', `/v1/highlights/${highlight}`, { note: null })
      await w.api('PATCH', `/v1/highlights/${highlight}`, { note: '  \n ' })
    },
    change: null,
  },
  {
    name: 'PATCH /v1/highlights/{id} with another note (a change)',
    setup: async (w) => ({ highlight: await w.highlight({ note: 'Old note' }) }),
    act: async (w, { highlight }) => {
      const body = await w.api('PATCH', `/v1/highlights/${highlight}`, { note: 'New note' })
      expect(body.highlight.updatedAt).toBe(w.h.clock.now().toISOString())
    },
    change: highlightChange,
  },
  {
    name: 'PATCH /v1/highlights/{id} with another colour (a change)',
    setup: async (w) => ({ highlight: await w.highlight() }),
    act: (w, { highlight }) => w.api('PATCH', `/v1/highlights/${highlight}`, { color: 'purple' }),
    change: highlightChange,
  },
  // Imports: a file already imported
  {
    name: 'importing a file already imported',
    setup: async (w) => {
      await w.importFile(POCKET)
      const items = (await w.api('GET', '/v1/saved-items?limit=500')).savedItems as any[]
      return { item: items.find((item) => item.normalizedUrl === 'https://no-op.example/imported').id }
    },
    act: (w) => w.importFile(POCKET),
    change: null,
  },
  // MCP: the tools go through the same operations
  {
    name: 'MCP mark_read on a read item',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: (w, { item }) => w.mcp('mark_read', { id: item }),
    change: null,
  },
  {
    name: 'MCP mark_read on an unread item (a change)',
    setup: async (w) => ({ item: await w.item() }),
    act: (w, { item }) => w.mcp('mark_read', { id: item }),
    change: itemChange(),
  },
  {
    name: 'MCP open_saved_item on a read item',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: (w, { item }) => w.mcp('open_saved_item', { id: item }),
    change: null,
  },
  {
    name: 'MCP move_to_folder with the folder the item is in',
    setup: async (w) => {
      const folder = await w.folder(`Mcp ${crypto.randomUUID()}`)
      return { item: await w.item({ folderId: folder }), folder }
    },
    act: (w, { item, folder }) => w.mcp('move_to_folder', { id: item, folderId: folder }),
    change: null,
  },
  {
    name: 'MCP rename_folder with its exact name',
    setup: async (w) => ({ folder: await w.folder('Mcp name') }),
    act: (w, { folder }) => w.mcp('rename_folder', { id: folder, name: 'Mcp name' }),
    change: null,
  },
  // The web pages' forms
  {
    name: 'web: mark a read item read',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: async (w, { item }) => {
      await w.web.get('/')
      expect((await w.web.post(`/queue/items/${item}/read-state`, { isRead: 'true' })).status).toBe(303)
    },
    change: null,
  },
  {
    name: 'web: open a read item',
    setup: async (w) => ({ item: await w.item({ read: true }) }),
    act: async (w, { item }) => {
      expect((await w.web.get(`/queue/items/${item}/open`)).status).toBe(303)
    },
    change: null,
  },
  {
    name: 'web: the reader saves the progress it saved a second ago',
    setup: async (w) => {
      const item = await w.item()
      await w.api('PUT', `/v1/saved-items/${item}/progress`, { progress: 0.25 })
      return { item, progress: item }
    },
    act: async (w, { item }) => {
      await w.web.get('/')
      expect((await w.web.post(`/items/${item}/progress`, { progress: '0.25' })).status).toBe(204)
    },
    change: null,
  },
  {
    name: 'web: rename a folder to its own name',
    setup: async (w) => ({ folder: await w.folder('Web name') }),
    act: async (w, { folder }) => {
      await w.web.get('/queue/folders')
      expect((await w.web.post(`/queue/folders/${folder}/rename`, { name: 'Web name' })).status).toBe(303)
    },
    change: null,
  },
  {
    name: 'web: rename a folder (a change)',
    setup: async (w) => ({ folder: await w.folder('Web old') }),
    act: async (w, { folder }) => {
      await w.web.get('/queue/folders')
      expect((await w.web.post(`/queue/folders/${folder}/rename`, { name: 'Web new' })).status).toBe(303)
    },
    change: folderChange,
  },
]

describe('a request that changes nothing writes nothing', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const w = await world()
    const ids = await c.setup(w)
    w.h.clock.advance(60_000)
    const before = await observe(w, ids)
    await c.act(w, ids)
    const after = await observe(w, ids)
    const written = await newSince(w, before)
    const named = (entries: string[]) =>
      entries.map((entry) => entry.replace(/[^:]+$/, (name) => ids[name] ?? name)).sort()
    if (c.change === null) {
      expect(after.updatedAt).toEqual(before.updatedAt)
      expect(written).toEqual({ feed: [], outbox: [] })
      return
    }
    const now = w.h.clock.now().toISOString()
    for (const [name, value] of Object.entries(after.updatedAt))
      expect(value, name).toBe(c.change.updated.includes(name) ? now : before.updatedAt[name]!)
    expect({ feed: written.feed.sort(), outbox: written.outbox.sort() }).toEqual({
      feed: named(c.change.feed),
      outbox: named(c.change.outbox),
    })
  })
})
