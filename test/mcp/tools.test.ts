import { describe, expect, test } from 'bun:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { TOOLS } from '../../core/mcp/tools.ts'
import { describeItem } from '../../core/mcp/item-line.ts'
import { mcpSuite } from './mcp-helpers.ts'

// Every MCP tool through a real MCP client over real HTTP, compared with what the REST API answers for
// the same data: the tools are the REST operations (docs/mcp.md#tools), so both must agree field for field.

const suite = mcpSuite()

interface Person {
  id: string
  email: string
  client: Client
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  /** The REST API with the same key. */
  rest(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>
  snapshot(): Promise<unknown>
}

async function person(): Promise<Person> {
  const live = suite.live
  const user = await live.harness.user()
  const key = await user.key()
  const authorization = `Bearer ${key}`
  const client = await suite.connect(key, 'tools-test')
  const rest: Person['rest'] = async (method, path, body) => {
    const headers: Record<string, string> = { authorization }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${live.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
  }
  return {
    id: user.id,
    email: user.email,
    client,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    rest,
    // This person's rows as the REST API shows them, for "nothing was written" checks.
    snapshot: async () => ({
      items: (await rest('GET', '/v1/saved-items')).body,
      folders: (await rest('GET', '/v1/folders')).body,
    }),
  }
}

function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1)
  const [content] = result.content
  expect(content!.type).toBe('text')
  return (content as { text: string }).text
}

/** A successful call: no isError, a non-empty summary, and the structured result. */
function ok(result: CallToolResult): { structured: any; text: string } {
  expect(result.isError).toBeFalsy()
  const text = textOf(result)
  expect(text.trim().length).toBeGreaterThan(0)
  expect(result.structuredContent).toBeDefined()
  return { structured: result.structuredContent, text }
}

/** A refused call: isError, a text the model can read, and no structured result. */
function failed(result: CallToolResult): string {
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  return textOf(result)
}

async function save(p: Person, url: string, extra: Record<string, unknown> = {}): Promise<any> {
  return ok(await p.call('save_url', { url, ...extra })).structured.savedItem
}

async function restItem(p: Person, id: string): Promise<any> {
  const list = await p.rest('GET', '/v1/saved-items')
  expect(list.status).toBe(200)
  return list.body.savedItems.find((item: { id: string }) => item.id === id)
}

describe('tools/list', () => {
  test('lists exactly the seventeen tools, each with title, description, object schemas and the catalog annotations', async () => {
    const p = await person()
    const { tools } = await p.client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name))
    for (const spec of TOOLS) {
      const tool = tools.find((candidate) => candidate.name === spec.name)!
      expect(tool.title).toBe(spec.title)
      expect(tool.description).toStartWith(spec.description)
      expect(tool.description).toContain(spec.scope)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type).toBe('object')
      expect(tool.annotations).toEqual({ title: spec.title, ...spec.annotations })
    }
  })

  test('input schemas mark the required arguments', async () => {
    const p = await person()
    const { tools } = await p.client.listTools()
    const required = Object.fromEntries(tools.map((tool) => [tool.name, [...(tool.inputSchema.required ?? [])].sort()]))
    expect(required).toEqual({
      save_url: ['url'],
      list_saved_items: [],
      search_saved_items: ['query'],
      list_changes: [],
      read_saved_item: ['id'],
      list_highlights: [],
      add_highlight: ['exact', 'savedItemId'],
      mark_read: ['id'],
      mark_unread: ['id'],
      open_saved_item: ['id'],
      move_to_folder: ['folderId', 'id'],
      delete_saved_item: ['id'],
      list_folders: [],
      create_folder: ['name'],
      rename_folder: ['id', 'name'],
      delete_folder: ['id'],
      whoami: [],
    })
  })
})

describe('saved-item tools agree with the REST API', () => {
  test('save_url creates the item REST then lists, with a summary naming its id', async () => {
    const p = await person()
    const folder = ok(await p.call('create_folder', { name: 'Inbox' })).structured
    const { structured, text } = ok(
      await p.call('save_url', {
        url: 'https://www.example.com/article/?utm_source=x',
        sourceName: 'Newsletter',
        tags: ['ai', 'ai', 'tools'],
        folderId: folder.id,
        captureChannel: 'raycast',
      }),
    )
    expect(structured.captureResult).toBe('created')
    expect(structured.savedItem).toMatchObject({
      originalUrl: 'https://www.example.com/article/?utm_source=x',
      normalizedUrl: 'https://example.com/article',
      host: 'example.com',
      sourceName: 'Newsletter',
      tags: ['ai', 'tools'],
      folder,
      captureChannel: 'raycast',
      isRead: false,
      enrichmentStatus: 'pending',
    })
    expect(text).toContain(structured.savedItem.id)
    const list = await p.rest('GET', '/v1/saved-items')
    expect(list.body.savedItems).toEqual([structured.savedItem])
  })

  test('save_url of a URL already saved: captureResult updated, still one item', async () => {
    const p = await person()
    const first = ok(await p.call('save_url', { url: 'https://example.com/twice' })).structured
    ok(await p.call('mark_read', { id: first.savedItem.id }))
    const second = ok(await p.call('save_url', { url: 'https://example.com/twice#section', tags: ['design'] }))
    expect(second.structured.captureResult).toBe('updated')
    expect(second.structured.savedItem).toMatchObject({ id: first.savedItem.id, isRead: false, tags: ['design'] })
    expect(second.text).toContain(first.savedItem.id)
    const list = await p.rest('GET', '/v1/saved-items')
    expect(list.body.savedItems).toEqual([second.structured.savedItem])
  })

  test('list_saved_items without arguments equals the REST list; its summary names every id', async () => {
    const p = await person()
    const ids = [await save(p, 'https://example.com/1'), await save(p, 'https://example.com/2')].map((item) => item.id)
    const { structured, text } = ok(await p.call('list_saved_items'))
    const rest = await p.rest('GET', '/v1/saved-items')
    expect(structured).toEqual({ savedItems: rest.body.savedItems, nextCursor: null })
    expect(structured.savedItems).toHaveLength(2)
    for (const id of ids) expect(text).toContain(id)
  })

  test('an empty queue lists no items with a non-empty summary', async () => {
    const p = await person()
    const { structured, text } = ok(await p.call('list_saved_items'))
    expect(structured).toEqual({ savedItems: [], nextCursor: null })
    expect(text).toBe('No saved items match.')
  })

  test('the summary is one numbered describeItem line per item and the next cursor, whatever the titles and folder names hold', async () => {
    // The lines are written by SQLite (docs/benchmarks.md#the-uncached-list): the text must be the one the
    // item line's JS words make (core/mcp/item-line.ts), with every character a title can hold.
    const p = await person()
    const folder = (await p.rest('POST', '/v1/folders', { name: 'Wörk "quoted" \\ 🦊' })).body
    const titles = [
      'Plain',
      'quote " and \\ backslash',
      'line\nbreak\ttab \u0001 \u007f',
      'emoji 🦊 \u2028 sep',
      '',
      null,
    ]
    for (const [i, title] of titles.entries()) {
      const item = await save(p, `https://example.com/summary/${i}?q="x"`, i % 2 ? { folderId: folder.id } : {})
      await suite.live.harness.db.$client.execute({
        sql: 'UPDATE saved_items SET title = ?, is_read = ?, enrichment_status = ? WHERE id = ?',
        args: [title, i % 3 === 0 ? 1 : 0, i % 4 === 0 ? 'enriched' : 'pending', item.id],
      })
    }
    const summaryOf = (items: any[], sort: string, cursor: string | null) =>
      [
        `${items.length} saved item${items.length === 1 ? '' : 's'} (sort ${sort}):`,
        ...items.map((item, index) => `${index + 1}. ${describeItem(item)}`),
      ].join('\n') + (cursor ? `\nMore items: call again with cursor "${cursor}".` : '')
    for (const sort of ['newest', 'title'])
      for (const limit of [1, 4, 50]) {
        const { structured, text } = ok(await p.call('list_saved_items', { sort, limit }))
        expect(structured.savedItems).toHaveLength(Math.min(limit, titles.length))
        expect(text).toBe(summaryOf(structured.savedItems, sort, structured.nextCursor))
      }
    const all = ok(await p.call('list_saved_items')).text
    expect(all).toContain('1. ')
    expect(all).toContain(`folder "Wörk \"quoted\" \\ 🦊"`)
    expect(all).toMatch(
      /\n\d\. line\nbreak\ttab \u0001 \u007f <https:\/\/example\.com\/summary\/2\?q="x"> \(unread, details pending; id /,
    )
  })

  test('list_saved_items with a sort and limit equals REST with the same sort and limit, cursor included', async () => {
    const p = await person()
    for (const n of [1, 2, 3]) await save(p, `https://example.com/sorted-${n}`)
    ok(await p.call('mark_read', { id: (await p.rest('GET', '/v1/saved-items')).body.savedItems[0].id }))
    for (const sort of ['newest', 'oldest', 'title', 'unread']) {
      const { structured } = ok(await p.call('list_saved_items', { sort, limit: 2 }))
      const rest = await p.rest('GET', `/v1/saved-items?sort=${sort}&limit=2`)
      expect(structured.savedItems).toEqual(rest.body.savedItems)
      const next = /<([^>]+)>; rel="next"/.exec(rest.headers.get('link') ?? '')
      expect(structured.nextCursor).toBe(new URL(next![1]!).searchParams.get('cursor'))
    }
  })

  test('pagination: 3 items with limit 2 give two pages; the second has the third item and no next cursor', async () => {
    const p = await person()
    for (const n of [1, 2, 3]) await save(p, `https://example.com/page-${n}`)
    const all = (await p.rest('GET', '/v1/saved-items')).body.savedItems
    const first = ok(await p.call('list_saved_items', { limit: 2 }))
    expect(first.structured.savedItems).toEqual(all.slice(0, 2))
    expect(first.structured.nextCursor).toEqual(expect.any(String))
    expect(first.text).toContain(first.structured.nextCursor)
    const second = ok(await p.call('list_saved_items', { limit: 2, cursor: first.structured.nextCursor }))
    expect(second.structured).toEqual({ savedItems: [all[2]], nextCursor: null })
  })

  test('list_saved_items by folder and with "none" equals REST with the same filter', async () => {
    const p = await person()
    const folder = ok(await p.call('create_folder', { name: 'Work' })).structured
    const inFolder = await save(p, 'https://example.com/in-folder', { folderId: folder.id })
    const loose = await save(p, 'https://example.com/loose')
    const byFolder = ok(await p.call('list_saved_items', { folder: folder.id })).structured
    expect(byFolder.savedItems.map((item: { id: string }) => item.id)).toEqual([inFolder.id])
    expect(byFolder.savedItems).toEqual((await p.rest('GET', `/v1/saved-items?folder=${folder.id}`)).body.savedItems)
    const none = ok(await p.call('list_saved_items', { folder: 'none' })).structured
    expect(none.savedItems.map((item: { id: string }) => item.id)).toEqual([loose.id])
    expect(none.savedItems).toEqual((await p.rest('GET', '/v1/saved-items?folder=none')).body.savedItems)
  })

  test('mark_read, mark_unread and open_saved_item return the item exactly as REST then lists it', async () => {
    const p = await person()
    const item = await save(p, 'https://example.com/states')
    const read = ok(await p.call('mark_read', { id: item.id }))
    expect(read.structured.isRead).toBe(true)
    expect(read.text).toContain(item.id)
    expect(read.structured).toEqual(await restItem(p, item.id))
    const unread = ok(await p.call('mark_unread', { id: item.id }))
    expect(unread.structured.isRead).toBe(false)
    expect(unread.text).toContain(item.id)
    expect(unread.structured).toEqual(await restItem(p, item.id))
    const opened = ok(await p.call('open_saved_item', { id: item.id }))
    expect(opened.structured).toMatchObject({ isRead: true, originalUrl: 'https://example.com/states' })
    expect(opened.text).toContain(item.id)
    expect(opened.structured).toEqual(await restItem(p, item.id))
  })

  test('move_to_folder puts the item in the folder and takes it out with null, as REST then shows', async () => {
    const p = await person()
    const folder = ok(await p.call('create_folder', { name: 'Later' })).structured
    const item = await save(p, 'https://example.com/move')
    const moved = ok(await p.call('move_to_folder', { id: item.id, folderId: folder.id }))
    expect(moved.structured.folder).toEqual(folder)
    expect(moved.text).toContain(item.id)
    expect(moved.structured).toEqual(await restItem(p, item.id))
    const out = ok(await p.call('move_to_folder', { id: item.id, folderId: null }))
    expect(out.structured.folder).toBeNull()
    expect(out.structured).toEqual(await restItem(p, item.id))
  })

  test('delete_saved_item removes the item from REST; deleting it again still succeeds', async () => {
    const p = await person()
    const item = await save(p, 'https://example.com/gone')
    const kept = await save(p, 'https://example.com/kept')
    const deleted = ok(await p.call('delete_saved_item', { id: item.id }))
    expect(deleted.structured).toEqual({ deleted: true, id: item.id })
    expect(deleted.text).toContain(item.id)
    expect((await p.rest('GET', '/v1/saved-items')).body.savedItems).toEqual([kept])
    expect(ok(await p.call('delete_saved_item', { id: item.id })).structured).toEqual({ deleted: true, id: item.id })
  })
})

describe('folder and account tools agree with the REST API', () => {
  test('list_folders equals GET /v1/folders and its summary names each id', async () => {
    const p = await person()
    expect(ok(await p.call('list_folders')).structured).toEqual({ folders: [] })
    const b = ok(await p.call('create_folder', { name: 'beta' })).structured
    const a = ok(await p.call('create_folder', { name: 'Alpha' })).structured
    const { structured, text } = ok(await p.call('list_folders'))
    expect(structured).toEqual((await p.rest('GET', '/v1/folders')).body)
    expect(structured.folders).toEqual([a, b])
    expect(text).toContain(a.id)
    expect(text).toContain(b.id)
  })

  test("create_folder, rename_folder and delete_folder are reflected in REST; the folder's items are kept", async () => {
    const p = await person()
    const created = ok(await p.call('create_folder', { name: '  Projects  ' }))
    expect(created.structured).toEqual({ id: expect.any(String), name: 'Projects' })
    expect(created.text).toContain(created.structured.id)
    expect((await p.rest('GET', '/v1/folders')).body.folders).toEqual([created.structured])

    const renamed = ok(await p.call('rename_folder', { id: created.structured.id, name: 'Side projects' }))
    expect(renamed.structured).toEqual({ id: created.structured.id, name: 'Side projects' })
    expect(renamed.text).toContain(created.structured.id)
    expect((await p.rest('GET', '/v1/folders')).body.folders).toEqual([renamed.structured])

    const item = await save(p, 'https://example.com/filed', { folderId: created.structured.id })
    expect(item.folder).toEqual(renamed.structured)
    const deleted = ok(await p.call('delete_folder', { id: created.structured.id }))
    expect(deleted.structured).toEqual({ deleted: true, id: created.structured.id })
    expect(deleted.text).toContain(created.structured.id)
    expect((await p.rest('GET', '/v1/folders')).body.folders).toEqual([])
    expect((await restItem(p, item.id)).folder).toBeNull()
  })

  test('whoami equals GET /v1/me', async () => {
    const p = await person()
    const { structured, text } = ok(await p.call('whoami'))
    const me = await p.rest('GET', '/v1/me')
    expect(me.status).toBe(200)
    expect(structured).toEqual(me.body)
    expect(structured).toEqual({ id: p.id, email: p.email })
    expect(text).toContain(p.email)
    expect(text).toContain(p.id)
  })
})

describe('bad arguments: isError naming the argument, nothing written', () => {
  test.each([
    ['save_url', { url: 42 }, 'url'],
    ['save_url', {}, 'url'],
    ['save_url', { url: 'https://example.com/x', tags: ['not-a-tag'] }, 'tags'],
    ['list_saved_items', { limit: 0 }, 'limit'],
    ['list_saved_items', { limit: 501 }, 'limit'],
    ['list_saved_items', { limit: '10' }, 'limit'],
    ['list_saved_items', { sort: 'random' }, 'sort'],
    ['mark_read', {}, 'id'],
    ['open_saved_item', { id: 7 }, 'id'],
    ['move_to_folder', { id: 'x' }, 'folderId'],
    ['create_folder', { name: 5 }, 'name'],
    ['rename_folder', { id: 'x' }, 'name'],
    ['delete_folder', { id: '' }, 'id'],
  ] as const)('%s %j', async (name, args, argument) => {
    const p = await person()
    await save(p, 'https://example.com/existing')
    ok(await p.call('create_folder', { name: 'Existing' }))
    const before = await p.snapshot()
    const text = failed(await p.call(name, args as Record<string, unknown>))
    expect(text).toContain(name)
    expect(text).toMatch(new RegExp(`\\b${argument}\\b`))
    expect(await p.snapshot()).toEqual(before)
  })
})

describe('domain errors: isError with the error tag first', () => {
  test('unknown ids: SavedItemNotFoundError and FolderNotFoundError', async () => {
    const p = await person()
    const item = await save(p, 'https://example.com/real')
    const before = await p.snapshot()
    for (const name of ['mark_read', 'mark_unread', 'open_saved_item']) {
      expect(failed(await p.call(name, { id: 'nope' }))).toBe('SavedItemNotFoundError: No saved item with id "nope"')
    }
    expect(failed(await p.call('move_to_folder', { id: 'nope', folderId: null }))).toStartWith(
      'SavedItemNotFoundError: ',
    )
    expect(failed(await p.call('move_to_folder', { id: item.id, folderId: 'nope' }))).toStartWith(
      'FolderNotFoundError: ',
    )
    expect(failed(await p.call('list_saved_items', { folder: 'nope' }))).toStartWith('FolderNotFoundError: ')
    expect(failed(await p.call('rename_folder', { id: 'nope', name: 'X' }))).toStartWith('FolderNotFoundError: ')
    expect(failed(await p.call('delete_folder', { id: 'nope' }))).toStartWith('FolderNotFoundError: ')
    expect(failed(await p.call('save_url', { url: 'https://example.com/new', folderId: 'nope' }))).toStartWith(
      'FolderNotFoundError: ',
    )
    expect(await p.snapshot()).toEqual(before)
  })

  test.each(['ftp://x', 'not a url', 'https://user:secret@example.com/'])(
    'save_url %j: InvalidUrlError, nothing saved',
    async (url) => {
      const p = await person()
      expect(failed(await p.call('save_url', { url }))).toStartWith('InvalidUrlError: ')
      expect((await p.rest('GET', '/v1/saved-items')).body.savedItems).toEqual([])
    },
  )

  test('a cursor the API did not issue: ValidationError', async () => {
    const p = await person()
    expect(failed(await p.call('list_saved_items', { cursor: 'garbage' }))).toStartWith('ValidationError: ')
  })

  test('folder names: FolderNameConflictError for a duplicate, InvalidFolderNameError for a blank one', async () => {
    const p = await person()
    const work = ok(await p.call('create_folder', { name: 'Work' })).structured
    const home = ok(await p.call('create_folder', { name: 'Home' })).structured
    const before = await p.snapshot()
    expect(failed(await p.call('create_folder', { name: 'work' }))).toStartWith('FolderNameConflictError: ')
    expect(failed(await p.call('rename_folder', { id: home.id, name: ' WORK ' }))).toStartWith(
      'FolderNameConflictError: ',
    )
    expect(failed(await p.call('create_folder', { name: '   ' }))).toStartWith('InvalidFolderNameError: ')
    expect(failed(await p.call('rename_folder', { id: work.id, name: '' }))).toStartWith('InvalidFolderNameError: ')
    expect(await p.snapshot()).toEqual(before)
  })
})

describe('isolation between people', () => {
  test("B sees none of A's items or folders and cannot change them", async () => {
    const a = await person()
    const b = await person()
    const folder = ok(await a.call('create_folder', { name: 'Private' })).structured
    const item = await save(a, 'https://example.com/private', { folderId: folder.id })
    const aBefore = await a.snapshot()

    expect(ok(await b.call('list_saved_items')).structured).toEqual({ savedItems: [], nextCursor: null })
    expect(ok(await b.call('list_folders')).structured).toEqual({ folders: [] })
    expect(failed(await b.call('list_saved_items', { folder: folder.id }))).toStartWith('FolderNotFoundError: ')
    for (const name of ['mark_read', 'mark_unread', 'open_saved_item']) {
      expect(failed(await b.call(name, { id: item.id }))).toBe(
        `SavedItemNotFoundError: No saved item with id "${item.id}"`,
      )
    }
    expect(failed(await b.call('move_to_folder', { id: item.id, folderId: null }))).toStartWith(
      'SavedItemNotFoundError: ',
    )
    expect(failed(await b.call('rename_folder', { id: folder.id, name: 'Mine now' }))).toStartWith(
      'FolderNotFoundError: ',
    )
    expect(failed(await b.call('delete_folder', { id: folder.id }))).toStartWith('FolderNotFoundError: ')
    // Deleting is idempotent, so B's delete "succeeds", but must not touch A's item.
    ok(await b.call('delete_saved_item', { id: item.id }))
    // B's own item cannot be filed into A's folder, nor saved into it.
    const own = await save(b, 'https://example.com/private')
    expect(own.id).not.toBe(item.id)
    expect(failed(await b.call('move_to_folder', { id: own.id, folderId: folder.id }))).toStartWith(
      'FolderNotFoundError: ',
    )
    expect(failed(await b.call('save_url', { url: 'https://example.com/other', folderId: folder.id }))).toStartWith(
      'FolderNotFoundError: ',
    )

    expect(await a.snapshot()).toEqual(aBefore)
    expect(ok(await b.call('list_saved_items')).structured.savedItems).toEqual([own])
  })
})

describe('results are checked against their output schema', () => {
  test('a stored row that breaks the SavedItem schema: list_changes and mark_read answer InternalError, logged, the value never sent; the list pages rely on the database', async () => {
    const p = await person()
    const item = await save(p, 'https://example.com/corrupt-mcp')
    // The database refuses such a value (docs/api.md#data-rules), so the row is written past its check, as a
    // row stored before the check existed would be: the output check stays behind it.
    const db = suite.live.harness.db.$client
    const check = (await db.execute("SELECT sql FROM sqlite_master WHERE name = 'saved_items_kinds_update'")).rows[0]!
    await db.execute('DROP TRIGGER saved_items_kinds_update')
    await db.execute({ sql: "UPDATE saved_items SET type = 'hologram' WHERE id = ?", args: [item.id] })
    await db.execute(check.sql as string)
    for (const [name, args] of [
      ['list_changes', {}],
      ['mark_read', { id: item.id }],
    ] as const) {
      const text = failed(await p.call(name, args))
      expect(text).toBe('InternalError: the service failed to run this tool; retry later')
      expect(text).not.toContain('hologram')
    }
    const logged = suite.live.harness.logs.filter((line) => line.msg === 'mcp tool result failed its schema')
    // mark_read sets only the read state, which the database checks alone (the type is not touched): the
    // write goes through, and the item it answers with is caught.
    expect(logged.map((line) => line.tool)).toEqual(['list_changes', 'mark_read'])
    expect(JSON.stringify(logged)).not.toContain('hologram')
    // The list's pages are SQLite's JSON of the stored columns, for REST and MCP alike: they are held to the
    // schema by the database's checks of every write, not by a walk of each page (docs/api.md#data-rules).
    const listed = ok(await p.call('list_saved_items')).structured
    expect(listed.savedItems).toEqual((await p.rest('GET', '/v1/saved-items')).body.savedItems)
    expect(listed.savedItems[0].type).toBe('hologram')
  })
})
