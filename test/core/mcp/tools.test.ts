import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { findTool, MCP_DEFAULT_SCOPE, scopesNeededFor, stepUpScope, TOOLS } from '../../../core/mcp/tools.ts'
import { SCOPES } from '../../../core/types.ts'

// docs/mcp.md#tools: the tool names, and the scope of the REST operation each one mirrors (docs/security.md#scopes).
const EXPECTED_SCOPES: Record<string, string> = {
  save_url: 'saved-items:capture',
  list_saved_items: 'saved-items:read',
  search_saved_items: 'saved-items:read',
  list_changes: 'saved-items:read',
  read_saved_item: 'saved-items:read',
  list_highlights: 'saved-items:read',
  add_highlight: 'saved-items:write',
  mark_read: 'saved-items:write',
  mark_unread: 'saved-items:write',
  open_saved_item: 'saved-items:write',
  move_to_folder: 'saved-items:write',
  delete_saved_item: 'saved-items:delete',
  list_folders: 'folders:read',
  create_folder: 'folders:write',
  rename_folder: 'folders:write',
  delete_folder: 'folders:delete',
  whoami: 'account:read',
}
const READ_TOOLS = [
  'list_saved_items',
  'search_saved_items',
  'list_changes',
  'read_saved_item',
  'list_highlights',
  'list_folders',
  'whoami',
]
const DELETE_TOOLS = ['delete_saved_item', 'delete_folder']

const call = (name: unknown, id: number = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
})

describe('TOOLS', () => {
  test('holds exactly the seventeen tools of docs/mcp.md#tools, each once', () => {
    assert.deepEqual(
      TOOLS.map((tool) => tool.name),
      Object.keys(EXPECTED_SCOPES),
    )
  })

  test('each tool needs the scope of the REST operation it mirrors', () => {
    for (const tool of TOOLS) assert.equal(tool.scope, EXPECTED_SCOPES[tool.name], tool.name)
    // Every scope a credential can hold is needed by some tool, so none is unreachable over MCP; except
    // webhooks:manage, which only the REST API and settings use (docs/mcp.md#tools).
    assert.deepEqual(
      new Set(TOOLS.map((tool) => tool.scope)),
      new Set(SCOPES.filter((scope) => scope !== 'webhooks:manage')),
    )
  })

  test('has a title and a one-line description for every tool', () => {
    for (const tool of TOOLS) {
      assert.ok(tool.title.trim().length > 0, tool.name)
      assert.ok(tool.description.trim().length > 0, tool.name)
      assert.equal(tool.description.includes('\n'), false, tool.name)
    }
  })

  test('annotations: the list, search and read tools and whoami are read-only, only delete_* is destructive, none is open-world', () => {
    for (const tool of TOOLS) {
      assert.equal(tool.annotations.readOnlyHint, READ_TOOLS.includes(tool.name), `${tool.name} readOnlyHint`)
      assert.equal(tool.annotations.destructiveHint, DELETE_TOOLS.includes(tool.name), `${tool.name} destructiveHint`)
      assert.equal(tool.annotations.openWorldHint, false, `${tool.name} openWorldHint`)
    }
  })

  test('saving again and opening change the item each time, so they are not idempotent; the reads are', () => {
    const idempotent = Object.fromEntries(TOOLS.map((tool) => [tool.name, tool.annotations.idempotentHint]))
    assert.equal(idempotent.save_url, false)
    assert.equal(idempotent.open_saved_item, false)
    assert.equal(idempotent.create_folder, false)
    // Each call adds a highlight, even of a passage already highlighted.
    assert.equal(idempotent.add_highlight, false)
    for (const name of READ_TOOLS) assert.equal(idempotent[name], true, name)
  })
})

describe('findTool()', () => {
  test('finds every tool by its exact name', () => {
    for (const tool of TOOLS) assert.equal(findTool(tool.name), tool)
  })

  test('finds nothing for unknown names, other cases or padded names', () => {
    for (const name of [
      '',
      'nope',
      'WHOAMI',
      'Save_Url',
      ' whoami',
      'whoami ',
      'delete-folder',
      'toString',
      'constructor',
      '__proto__',
    ]) {
      assert.equal(findTool(name), undefined, name)
    }
  })
})

describe('scopesNeededFor()', () => {
  test("a single tools/call needs its tool's scope", () => {
    for (const tool of TOOLS) assert.deepEqual(scopesNeededFor(call(tool.name)), [tool.scope], tool.name)
  })

  test('a batch needs the scope of every tools/call in it, each once, in message order', () => {
    assert.deepEqual(scopesNeededFor([call('delete_folder', 1), call('whoami', 2)]), ['folders:delete', 'account:read'])
    assert.deepEqual(scopesNeededFor([call('mark_read', 1), call('mark_unread', 2), call('list_folders', 3)]), [
      'saved-items:write',
      'folders:read',
    ])
  })

  test('a batch mixing calls with other messages counts only the calls', () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      call('save_url', 2),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call('unknown_tool', 3),
      null,
      42,
    ]
    assert.deepEqual(scopesNeededFor(batch), ['saved-items:capture'])
  })

  test('an unknown tool needs nothing (the MCP server answers it)', () => {
    assert.deepEqual(scopesNeededFor(call('nope')), [])
    assert.deepEqual(scopesNeededFor(call(42)), [])
    assert.deepEqual(scopesNeededFor(call(null)), [])
    assert.deepEqual(scopesNeededFor(call(['whoami'])), [])
  })

  test('messages other than tools/call need nothing, whatever their params', () => {
    for (const method of [
      'initialize',
      'tools/list',
      'ping',
      'notifications/initialized',
      'resources/read',
      'TOOLS/CALL',
      'tools/call ',
    ]) {
      assert.deepEqual(
        scopesNeededFor({ jsonrpc: '2.0', id: 1, method, params: { name: 'delete_folder' } }),
        [],
        method,
      )
    }
    assert.deepEqual(scopesNeededFor({ jsonrpc: '2.0', id: 1, params: { name: 'delete_folder' } }), [])
  })

  test('bodies that are not JSON-RPC objects need nothing', () => {
    for (const body of [null, undefined, 0, 42, '', 'tools/call', true, [], [null], [[call('delete_folder')]], {}]) {
      assert.deepEqual(scopesNeededFor(body), [], JSON.stringify(body) ?? 'undefined')
    }
  })

  test('a tools/call with missing or malformed params needs nothing', () => {
    for (const params of [undefined, null, 42, 'delete_folder', true, {}, { arguments: {} }]) {
      assert.deepEqual(
        scopesNeededFor({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
        [],
        JSON.stringify(params) ?? 'undefined',
      )
    }
  })
})

describe('stepUpScope()', () => {
  test('keeps the granted scopes first, then adds the missing ones', () => {
    assert.equal(
      stepUpScope(['saved-items:read', 'folders:read'], ['folders:delete']),
      'saved-items:read folders:read folders:delete',
    )
    assert.equal(
      stepUpScope(['account:read'], ['saved-items:delete', 'folders:delete']),
      'account:read saved-items:delete folders:delete',
    )
  })

  test('names each scope once', () => {
    assert.equal(
      stepUpScope(['folders:read', 'folders:read'], ['folders:read', 'folders:write', 'folders:write']),
      'folders:read folders:write',
    )
  })

  test('with nothing granted it is just the missing scopes; with nothing missing just the granted', () => {
    assert.equal(stepUpScope([], ['saved-items:capture']), 'saved-items:capture')
    assert.equal(stepUpScope(['account:read'], []), 'account:read')
    assert.equal(stepUpScope([], []), '')
  })
})

describe('MCP_DEFAULT_SCOPE', () => {
  test('asks for the scopes of every tool that destroys nothing, in the contract order, and nothing else', () => {
    assert.equal(
      MCP_DEFAULT_SCOPE,
      'saved-items:capture saved-items:read saved-items:write folders:read folders:write account:read',
    )
  })

  test('leaves out the delete scopes and offline_access, and covers every other tool', () => {
    const scopes = MCP_DEFAULT_SCOPE.split(' ')
    for (const tool of TOOLS) assert.equal(scopes.includes(tool.scope), !tool.annotations.destructiveHint, tool.name)
    for (const absent of ['saved-items:delete', 'folders:delete', 'offline_access'])
      assert.ok(!scopes.includes(absent), absent)
    assert.equal(new Set(scopes).size, scopes.length)
    assert.deepEqual(
      scopes,
      SCOPES.filter((scope) => scopes.includes(scope)),
    )
  })
})
