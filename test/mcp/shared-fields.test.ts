import { beforeAll, describe, expect, test } from 'bun:test'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { MAX_CAPTURE_TAGS, MAX_FOLDER_ID_LENGTH, MAX_SOURCE_NAME_LENGTH } from '../../adapters/http/schemas.ts'
import { MAX_FOLDER_NAME_LENGTH } from '../../core/folders/folder-name.ts'
import { MAX_EXACT_LENGTH, MAX_NOTE_LENGTH } from '../../core/highlights/highlight.ts'
import { MAX_URL_LENGTH } from '../../core/url/normalize-url.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'

// REST bodies and MCP tool inputs share their fields (`Fields` in adapters/http/schemas.ts, docs/mcp.md#tools):
// every edge value of a shared field must get the same answer on both surfaces, accepted on both or refused
// on both with the same error type (a schema refusal is ValidationError over REST and "Input validation
// error" over MCP). Each surface runs as its own person, so names and items do not collide.

interface Ids {
  folderId: string
  itemId: string
}

interface Surface {
  /** The outcome of sending `value` as the field: 'ok', or the error type. */
  send(field: SharedField, value: unknown): Promise<string>
}

interface SharedField {
  name: string
  rest: { method: string; path: (ids: Ids) => string; body: (value: unknown) => Record<string, unknown> }
  mcp: { tool: string; args: (value: unknown, ids: Ids) => Record<string, unknown> }
  /** Edge values; a function gets the person's own ids. */
  values: (unknown | ((ids: Ids) => unknown))[]
}

const url = (length: number) => {
  const head = 'https://example.com/'
  return head + 'a'.repeat(length - head.length)
}
const text = (length: number) => 'x'.repeat(length)
const ownFolder = (ids: Ids) => ids.folderId
// Names made unique per surface run by a counter, so a second accepted create is no name conflict.
let names = 0
const freshName = (length: number) => () => `${++names}`.padStart(length, 'n')

const FIELDS: SharedField[] = [
  {
    name: 'url',
    rest: { method: 'POST', path: () => '/v1/captures', body: (value) => ({ url: value }) },
    mcp: { tool: 'save_url', args: (value) => ({ url: value }) },
    values: ['', 'not a url', url(MAX_URL_LENGTH), url(MAX_URL_LENGTH + 1), 42, null],
  },
  {
    name: 'sourceName',
    rest: {
      method: 'POST',
      path: () => '/v1/captures',
      body: (value) => ({ url: 'https://example.com/s', sourceName: value }),
    },
    mcp: { tool: 'save_url', args: (value) => ({ url: 'https://example.com/s', sourceName: value }) },
    values: ['', text(MAX_SOURCE_NAME_LENGTH), text(MAX_SOURCE_NAME_LENGTH + 1), 7],
  },
  {
    name: 'tags',
    rest: {
      method: 'POST',
      path: () => '/v1/captures',
      body: (value) => ({ url: 'https://example.com/t', tags: value }),
    },
    mcp: { tool: 'save_url', args: (value) => ({ url: 'https://example.com/t', tags: value }) },
    values: [
      [],
      ['ai'],
      Array(MAX_CAPTURE_TAGS).fill('ai'),
      Array(MAX_CAPTURE_TAGS + 1).fill('ai'),
      ['no-such-tag'],
      'ai',
    ],
  },
  {
    name: 'captureChannel',
    rest: {
      method: 'POST',
      path: () => '/v1/captures',
      body: (value) => ({ url: 'https://example.com/c', captureChannel: value }),
    },
    mcp: { tool: 'save_url', args: (value) => ({ url: 'https://example.com/c', captureChannel: value }) },
    values: ['raycast', 'api', '', 'carrier-pigeon'],
  },
  {
    name: 'html',
    rest: {
      method: 'POST',
      path: () => '/v1/captures',
      body: (value) => ({ url: 'https://example.com/h', html: value }),
    },
    mcp: { tool: 'save_url', args: (value) => ({ url: 'https://example.com/h', html: value }) },
    values: ['', '<p>A page</p>', 3],
  },
  {
    name: 'folderId of a capture',
    rest: {
      method: 'POST',
      path: () => '/v1/captures',
      body: (value) => ({ url: 'https://example.com/f', folderId: value }),
    },
    mcp: { tool: 'save_url', args: (value) => ({ url: 'https://example.com/f', folderId: value }) },
    values: [ownFolder, '', text(MAX_FOLDER_ID_LENGTH), text(MAX_FOLDER_ID_LENGTH + 1), 5],
  },
  {
    name: 'folderId of a move',
    rest: {
      method: 'PUT',
      path: (ids) => `/v1/saved-items/${ids.itemId}/folder`,
      body: (value) => ({ folderId: value }),
    },
    mcp: { tool: 'move_to_folder', args: (value, ids) => ({ id: ids.itemId, folderId: value }) },
    values: [ownFolder, null, '', text(MAX_FOLDER_ID_LENGTH), text(MAX_FOLDER_ID_LENGTH + 1), 5],
  },
  {
    name: 'name of a new folder',
    rest: { method: 'POST', path: () => '/v1/folders', body: (value) => ({ name: value }) },
    mcp: { tool: 'create_folder', args: (value) => ({ name: value }) },
    values: [
      '',
      '   ',
      freshName(MAX_FOLDER_NAME_LENGTH),
      text(MAX_FOLDER_NAME_LENGTH + 1),
      text(1001),
      'Same name',
      'Same name',
      4,
    ],
  },
  {
    name: 'exact of a new highlight',
    rest: {
      method: 'POST',
      path: (ids) => `/v1/saved-items/${ids.itemId}/highlights`,
      body: (value) => ({ quote: { exact: value } }),
    },
    mcp: { tool: 'add_highlight', args: (value, ids) => ({ savedItemId: ids.itemId, exact: value }) },
    values: ['', 'x', text(MAX_EXACT_LENGTH), text(MAX_EXACT_LENGTH + 1), 'not in the text', '\uDC00x', 9, null],
  },
  {
    name: 'note of a new highlight',
    rest: {
      method: 'POST',
      path: (ids) => `/v1/saved-items/${ids.itemId}/highlights`,
      body: (value) => ({ quote: { exact: 'x' }, note: value }),
    },
    mcp: { tool: 'add_highlight', args: (value, ids) => ({ savedItemId: ids.itemId, exact: 'x', note: value }) },
    values: ['', '  \n', 'A note', text(MAX_NOTE_LENGTH), text(MAX_NOTE_LENGTH + 1), 'x\uD800', 3],
  },
  {
    name: 'name of a renamed folder',
    rest: { method: 'PATCH', path: (ids) => `/v1/folders/${ids.folderId}`, body: (value) => ({ name: value }) },
    mcp: { tool: 'rename_folder', args: (value, ids) => ({ id: ids.folderId, name: value }) },
    values: ['', '   ', freshName(MAX_FOLDER_NAME_LENGTH), text(MAX_FOLDER_NAME_LENGTH + 1), text(1001), 4],
  },
]

let h: Harness

/** A person with one folder and one item (whose article is a long run of "x", for highlights), and their key. */
async function person(label: string): Promise<{ key: string; ids: Ids }> {
  const key = await (await h.user()).key()
  const folder = await h.call('POST', '/v1/folders', { token: key, body: { name: `${label} folder` } })
  const item = await h.call('POST', '/v1/captures', { token: key, body: { url: `https://example.com/${label}` } })
  await h.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>x</p>', ?, ?)",
    args: [item.body.savedItem.id, text(MAX_EXACT_LENGTH + 10), item.body.savedItem.createdAt],
  })
  return { key, ids: { folderId: folder.body.id, itemId: item.body.savedItem.id } }
}

const valueFor = (value: unknown, ids: Ids) => (typeof value === 'function' ? value(ids) : value)

async function restSurface(): Promise<Surface> {
  const { key, ids } = await person('rest')
  return {
    async send(field, value) {
      const reply = await h.call(field.rest.method, field.rest.path(ids), {
        token: key,
        body: field.rest.body(valueFor(value, ids)),
      })
      return reply.status < 300 ? 'ok' : String(reply.body?._tag)
    },
  }
}

async function mcpSurface(): Promise<Surface> {
  const { key, ids } = await person('mcp')
  return {
    async send(field, value) {
      const reply = await h.call('POST', '/mcp', {
        token: key,
        unchecked: true,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: field.mcp.tool, arguments: field.mcp.args(valueFor(value, ids), ids) },
        },
      })
      const result = reply.body.result
      if (!result.isError) return 'ok'
      const message: string = result.content[0].text
      return message.includes('Input validation error') ? 'ValidationError' : message.slice(0, message.indexOf(':'))
    },
  }
}

beforeAll(async () => {
  h = await createHarness()
})

describe('a field REST and MCP share gets the same answer on both for every edge value', () => {
  for (const field of FIELDS) {
    test(field.name, async () => {
      const rest = await restSurface()
      const mcp = await mcpSurface()
      const outcomes: { value: string; rest: string; mcp: string }[] = []
      for (const value of field.values) {
        const shown = typeof value === 'function' ? value.name || 'own id' : JSON.stringify(value).slice(0, 40)
        outcomes.push({ value: shown, rest: await rest.send(field, value), mcp: await mcp.send(field, value) })
      }
      expect(outcomes.filter((outcome) => outcome.rest !== outcome.mcp)).toEqual([])
      // Each field's values reach both an acceptance and a refusal, so the comparison means something.
      expect(outcomes.some((outcome) => outcome.rest === 'ok')).toBe(true)
      expect(outcomes.some((outcome) => outcome.rest !== 'ok')).toBe(true)
    })
  }

  test('the three limits that once differed: a long URL, an empty folder id and a 1,001-character name', async () => {
    const rest = await restSurface()
    const mcp = await mcpSurface()
    const byName = (name: string) => FIELDS.find((field) => field.name === name)!
    for (const surface of [rest, mcp]) {
      expect(await surface.send(byName('url'), url(MAX_URL_LENGTH + 1))).toBe('InvalidUrlError')
      expect(await surface.send(byName('folderId of a capture'), '')).toBe('FolderNotFoundError')
      expect(await surface.send(byName('folderId of a move'), '')).toBe('FolderNotFoundError')
      expect(await surface.send(byName('name of a new folder'), text(1001))).toBe('InvalidFolderNameError')
    }
  })
})
