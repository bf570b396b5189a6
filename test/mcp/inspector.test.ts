import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'
import type { TestUser } from '../helpers/harness.ts'
import { rest } from './mcp-helpers.ts'

// The MCP Inspector's CLI (@modelcontextprotocol/inspector) as a third-party client of /mcp over
// Streamable HTTP with a personal API key: listing the tools, calling some, being refused without a key,
// and its schema-portability check (--strict).

const INSPECTOR = join(
  import.meta.dir,
  '../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
)
// Its package.json asks for Node ≥ 22.19, but the CLI client runs on the machine's Node 20 (checked: every
// method used here works), so it runs on Node as the Inspector's users do; Bun would be the fallback.
const RUNTIME = Bun.which('node') ?? process.execPath

const TOOL_NAMES = [
  'save_url',
  'list_saved_items',
  'search_saved_items',
  'list_changes',
  'read_saved_item',
  'list_highlights',
  'add_highlight',
  'mark_read',
  'mark_unread',
  'open_saved_item',
  'move_to_folder',
  'delete_saved_item',
  'list_folders',
  'create_folder',
  'rename_folder',
  'delete_folder',
  'whoami',
]

let live: LiveServer
let person: TestUser
let key: string
/** The Inspector keeps state under ~/.mcp-inspector: a throwaway HOME keeps the real one untouched. */
let home: string

beforeAll(async () => {
  live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  person = await live.harness.user()
  key = await person.key()
  home = await mkdtemp(join(tmpdir(), 'readlater-inspector-'))
})

afterAll(async () => {
  await live?.stop()
  if (home) await rm(home, { recursive: true, force: true })
})

/** Runs the Inspector CLI against /mcp; stdin is not a TTY, so it never starts an interactive OAuth flow. */
async function inspector(
  args: string[],
  token: string | null,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const auth = token === null ? [] : ['--header', `Authorization: Bearer ${token}`]
  const child = Bun.spawn([RUNTIME, INSPECTOR, '--cli', `${live.url}/mcp`, '--transport', 'http', ...args, ...auth], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, HOME: home, NO_COLOR: '1' },
  })
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { exitCode, stdout, stderr }
}

test('tools/list with an API key lists exactly the seventeen tools', async () => {
  const run = await inspector(['--method', 'tools/list'], key)
  expect(run.exitCode).toBe(0)
  const listed = JSON.parse(run.stdout) as { tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] }
  expect(listed.tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort())
  for (const tool of listed.tools) expect(tool.outputSchema).toMatchObject({ type: 'object' })
  // Without --strict it prints a one-line portability count only when it found something.
  expect(run.stderr).not.toContain('Schema portability')
})

test('tools/list --strict finds no portability problem at all (nullable fields are anyOf, not type arrays)', async () => {
  const run = await inspector(['--method', 'tools/list', '--strict'], key)
  expect(run.exitCode).toBe(0)
  expect(run.stderr).not.toMatch(/^Error/m)
  expect(run.stderr).not.toMatch(/^Warning/m)
})

test('tools/call whoami names the key owner; save_url saves what REST then lists', async () => {
  const whoami = await inspector(['--method', 'tools/call', '--tool-name', 'whoami'], key)
  expect(whoami.exitCode).toBe(0)
  const me = JSON.parse(whoami.stdout)
  expect(me.structuredContent).toEqual({ id: person.id, email: person.email })
  expect(me.content[0].text).toContain(person.email)

  const saved = await inspector(
    [
      '--method',
      'tools/call',
      '--tool-name',
      'save_url',
      '--tool-arg',
      'url=https://example.com/inspected',
      'tags=["ai"]',
    ],
    key,
  )
  expect(saved.exitCode).toBe(0)
  const result = JSON.parse(saved.stdout).structuredContent
  expect(result).toMatchObject({
    captureResult: 'created',
    savedItem: { originalUrl: 'https://example.com/inspected', tags: ['ai'] },
  })
  const listed = await rest(live.url, key, 'GET', '/v1/saved-items')
  expect(listed.body.savedItems).toEqual([result.savedItem])
})

test('a domain failure comes back as a tool error, not a transport error', async () => {
  const run = await inspector(['--method', 'tools/call', '--tool-name', 'mark_read', '--tool-arg', 'id=nope'], key)
  expect(run.exitCode).not.toBe(0)
  expect(JSON.parse(run.stdout)).toEqual({
    isError: true,
    content: [{ type: 'text', text: 'SavedItemNotFoundError: No saved item with id "nope"' }],
  })
})

test('without a credential, or with a bad one, the Inspector is refused with the 401', async () => {
  // --stored-auth-only: the non-interactive mode, which reports the 401 instead of starting OAuth.
  const none = await inspector(['--method', 'tools/list', '--stored-auth-only'], null)
  expect(none.exitCode).not.toBe(0)
  expect(none.stdout).toBe('')
  const noneError = JSON.parse(none.stderr).error
  expect(noneError.code).toBe('auth_required')
  expect(noneError.message).toContain('"_tag":"Unauthorized"')

  const bad = await inspector(['--method', 'tools/list', '--stored-auth-only'], 'rlk_not-a-real-key')
  expect(bad.exitCode).not.toBe(0)
  expect(JSON.parse(bad.stderr).error).toMatchObject({
    code: 'auth_required',
    message: expect.stringContaining('"_tag":"Unauthorized"'),
  })
})

test("a key without the tool's scope: the Inspector reports the 403 challenge scope", async () => {
  const readOnly = await person.key(['saved-items:read'])
  const run = await inspector(
    ['--method', 'tools/call', '--tool-name', 'mark_read', '--tool-arg', 'id=any', '--stored-auth-only'],
    readOnly,
  )
  expect(run.exitCode).not.toBe(0)
  expect(JSON.parse(run.stderr).error.message).toBe('Insufficient scope: required "saved-items:read saved-items:write"')
})
