import { describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../core/auth/api-keys.ts'
import { SCOPES } from '../../core/types.ts'
import { insertApiKey } from '../../adapters/storage/api-keys.ts'
import { countRows, createHarness, random, type Harness } from '../helpers/harness.ts'
import { uuidv7 } from '../../core/ids.ts'
import { insertAgent, snapshot, userIdOf } from './fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

const env = { IP_RATE_LIMIT_MAX: '1000' }

async function signedIn(email: string, harness?: Harness): Promise<{ h: Harness; web: WebClient; userId: string }> {
  const h = harness ?? (await createHarness({ env }))
  const web = new WebClient(h)
  await web.signUp(email)
  await web.get('/settings')
  return { h, web, userId: await userIdOf(h, email) }
}

const KEY_IN_PAGE = /<code id="new-api-key" class="secret">(rlk_[A-Za-z0-9_-]{43})<\/code>/

async function createKey(web: WebClient, label: string, scopes: string[]): Promise<string> {
  const page = await web.post('/settings/api-keys', { label, scope: scopes })
  expect(page.status).toBe(201)
  return KEY_IN_PAGE.exec(page.text)![1]!
}

describe('GET /settings', () => {
  test('signed out: 303 to /sign-in?next=/settings', async () => {
    const h = await createHarness({ env })
    const page = await new WebClient(h).get('/settings')
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in?next=/settings')
  })

  test('shows the "API keys" section (Label, one checkbox per scope, Create key) and "Connected agents"', async () => {
    const { web } = await signedIn('labels@example.com')
    const page = web.last!
    expect(page.status).toBe(200)
    expect(page.text).toContain('<h2 id="api-keys">API keys</h2>')
    expect(page.text).toContain('<h2 id="connected-agents">Connected agents</h2>')
    expect(page.text).toContain('<label for="key-label">Label</label>')
    SCOPES.forEach((scope, i) => {
      expect(page.text).toContain(
        `<input type="checkbox" id="scope-${i}" name="scope" value="${scope}" aria-describedby="scope-${i}-hint"><label for="scope-${i}">${scope}</label>`,
      )
    })
    expect(page.text).toContain('<button type="submit">Create key</button>')
    expect(textOf(page.text)).toContain('No API keys yet.')
    expect(textOf(page.text)).toContain('No agents are connected.')
  })
})

describe('API keys', () => {
  test('creating a key shows it once in full (201), stores only its hash and prefix, and lists it', async () => {
    const { h, web, userId } = await signedIn('create@example.com')
    const page = await web.post('/settings/api-keys', {
      label: '  laptop script ',
      scope: ['saved-items:read', 'folders:write'],
    })
    expect(page.status).toBe(201)
    const key = KEY_IN_PAGE.exec(page.text)![1]!
    expect(textOf(page.text)).toContain('Copy it now: it is shown only this once.')
    const [row] = (await h.db.$client.execute('SELECT * FROM api_keys')).rows as never as Record<
      string,
      string | null
    >[]
    expect(row).toMatchObject({
      user_id: userId,
      key_hash: hashApiKey(key),
      prefix: key.slice(0, 12),
      label: 'laptop script',
      scopes: JSON.stringify(['saved-items:read', 'folders:write']),
      connect_client: null,
      device_hint: null,
      revoked_at: null,
      last_used_at: null,
      created_at: '2026-11-22T10:00:00.000Z',
    })
    expect(await snapshot(h)).not.toContain(key)
    expect(JSON.stringify(h.logs)).not.toContain(key)
    const again = await web.get('/settings')
    expect(again.text).not.toContain(key)
    expect(again.text).not.toContain('new-api-key')
    expect(again.text).toContain(`<code>${key.slice(0, 12)}…</code>`)
    expect(textOf(again.text)).toContain('laptop script')
    expect(again.text).toContain('<li><code>saved-items:read</code></li><li><code>folders:write</code></li>')
    expect(again.text).toContain(`action="/settings/api-keys/${row!.id}/revoke"`)
  })

  test('the key works on the API with exactly the chosen scopes, and "last used" shows its use', async () => {
    const { h, web } = await signedIn('use@example.com')
    const key = await createKey(web, 'reader', ['saved-items:read'])
    expect((await h.call('GET', '/v1/saved-items', { token: key })).status).toBe(200)
    const denied = await h.call('GET', '/v1/folders', { token: key })
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({
      _tag: 'InsufficientScopeError',
      message: expect.any(String),
      requiredScope: 'folders:read',
    })
    const page = await web.get('/settings')
    expect(page.text).toContain(
      '<td data-label="Last used"><time datetime="2026-11-22T10:00:00.000Z">2026-11-22 10:00\u00a0UTC</time></td>',
    )
  })

  test('revoking a key makes the very next API request 401 and takes it off the list', async () => {
    const { h, web } = await signedIn('revoke@example.com')
    const key = await createKey(web, 'short-lived', ['saved-items:read'])
    expect((await h.call('GET', '/v1/saved-items', { token: key })).status).toBe(200)
    const id = String((await h.db.$client.execute('SELECT id FROM api_keys')).rows[0]!.id)
    const page = await web.post(`/settings/api-keys/${id}/revoke`)
    expect(page.status).toBe(303)
    expect(page.location).toBe('/settings?done=key-revoked')
    const next = await h.call('GET', '/v1/saved-items', { token: key })
    expect(next.status).toBe(401)
    expect(next.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const revokedAt = (await h.db.$client.execute('SELECT revoked_at FROM api_keys')).rows[0]!.revoked_at
    expect(revokedAt).toBe('2026-11-22T10:00:00.000Z')
    const settings = await web.get('/settings?done=key-revoked')
    expect(textOf(settings.text)).toContain('API key revoked.')
    expect(settings.text).not.toContain('short-lived')
    // A second revoke finds no active key.
    expect((await web.post(`/settings/api-keys/${id}/revoke`)).status).toBe(404)
  })

  test.each([
    ['no label', '', ['saved-items:read'], 'Give the key a label.'],
    ['a blank label', '   ', ['saved-items:read'], 'Give the key a label.'],
    ['a 101-character label', 'x'.repeat(101), ['saved-items:read'], 'The label must be at most 100 characters.'],
    ['no scope', 'no scopes', [], 'Choose at least one scope.'],
    ['an unknown scope', 'too much', ['saved-items:read', 'admin:all'], 'Choose scopes from the list.'],
    ['offline_access (not a key scope)', 'offline', ['offline_access'], 'Choose scopes from the list.'],
  ])('%s: the form comes back with 422 and an error, choices kept, no key created', async (_, label, scopes, error) => {
    const { h, web } = await signedIn(`invalid-${Math.random()}@example.com`)
    const page = await web.post('/settings/api-keys', { label, scope: scopes })
    expect(page.status).toBe(422)
    expect(page.text).toContain(`<p class="error" role="alert">${error}</p>`)
    expect(page.text).not.toContain('rlk_')
    if (label.trim() && label.length <= 100) expect(page.text).toContain(`value="${label.trim()}"`)
    if (scopes.includes('saved-items:read'))
      expect(page.text).toContain('value="saved-items:read" aria-describedby="scope-1-hint" checked>')
    expect(await countRows(h.db, 'api_keys')).toBe(0)
  })

  test('a label of exactly 100 characters is fine', async () => {
    const { h, web } = await signedIn('hundred@example.com')
    await createKey(web, 'y'.repeat(100), ['account:read'])
    expect(await countRows(h.db, 'api_keys')).toBe(1)
  })

  test('another person cannot revoke my key: 404, and the key keeps working', async () => {
    const { h, web: mine } = await signedIn('owner@example.com')
    const key = await createKey(mine, 'mine', ['saved-items:read'])
    const id = String((await h.db.$client.execute('SELECT id FROM api_keys')).rows[0]!.id)
    const { web: theirs } = await signedIn('intruder@example.com', h)
    const before = await snapshot(h)
    const page = await theirs.post(`/settings/api-keys/${id}/revoke`)
    expect(page.status).toBe(404)
    expect(await snapshot(h)).toBe(before)
    expect((await h.call('GET', '/v1/saved-items', { token: key })).status).toBe(200)
    // Nor does the intruder's settings page show it.
    expect((await theirs.get('/settings')).text).not.toContain(key.slice(0, 12))
  })

  test('a connect key shows its client and device hint', async () => {
    const { h, web, userId } = await signedIn('connect@example.com')
    await insertApiKey(h.db, {
      id: uuidv7(Date.now(), random),
      userId,
      keyHash: 'f'.repeat(64),
      prefix: 'rlk_abcdefgh',
      label: 'Raycast on laptop',
      scopes: ['saved-items:capture'],
      connectClient: 'raycast',
      deviceHint: 'MacBook Pro',
      createdAt: h.clock.now().toISOString(),
    })
    const page = await web.get('/settings')
    expect(page.text).toContain('<td data-label="Client">raycast · MacBook Pro</td>')
    expect(textOf(page.text)).toContain('Raycast on laptop')
  })

  test('a hostile label, device hint and client name are shown as text, never as markup', async () => {
    const { h, web, userId } = await signedIn('hostile@example.com')
    const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    await createKey(web, hostile, ['saved-items:read'])
    await insertApiKey(h.db, {
      id: uuidv7(Date.now(), random),
      userId,
      keyHash: 'e'.repeat(64),
      prefix: 'rlk_zzzzzzzz',
      label: 'device',
      scopes: ['saved-items:capture'],
      connectClient: 'chrome-extension',
      deviceHint: hostile,
      createdAt: h.clock.now().toISOString(),
    })
    await insertAgent(h, userId, hostile, ['saved-items:read'])
    const page = await web.get('/settings')
    expect(page.text).not.toContain('<script>alert(1)')
    expect(page.text).not.toContain('<img src=x')
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;')
    expect(page.text.split('&lt;script&gt;alert(1)').length - 1).toBe(3)
  })
})

describe('Connected agents', () => {
  test('lists each active grant with the client name, scopes, when granted and last used', async () => {
    const { h, web, userId } = await signedIn('agents@example.com')
    const { grantId } = await insertAgent(h, userId, 'Claude Desktop', ['saved-items:read', 'folders:read'])
    await h.db.$client.execute({
      sql: 'UPDATE oauth_grants SET last_used_at = ? WHERE id = ?',
      args: ['2026-11-22T11:30:00.000Z', grantId],
    })
    const page = await web.get('/settings')
    expect(page.text).toContain('<td data-label="Client">Claude Desktop</td>')
    expect(page.text).toContain(
      '<td data-label="Scopes"><ul class="scopes"><li><code>saved-items:read</code></li><li><code>folders:read</code></li></ul></td>',
    )
    expect(page.text).toContain(
      '<td data-label="Granted"><time datetime="2026-11-22T10:00:00.000Z">2026-11-22 10:00\u00a0UTC</time></td>',
    )
    expect(page.text).toContain(
      '<td data-label="Last used"><time datetime="2026-11-22T11:30:00.000Z">2026-11-22 11:30\u00a0UTC</time></td>',
    )
    expect(page.text).toContain(`action="/settings/agents/${grantId}/revoke"`)
  })

  test('"Revoke" sets revoked_at and removes the row; revoked grants are not listed', async () => {
    const { h, web, userId } = await signedIn('disconnect@example.com')
    const { grantId } = await insertAgent(h, userId, 'Agent Smith', ['saved-items:read'])
    h.clock.advance(5_000)
    const page = await web.post(`/settings/agents/${grantId}/revoke`)
    expect(page.status).toBe(303)
    expect(page.location).toBe('/settings?done=agent-revoked')
    const row = (
      await h.db.$client.execute({ sql: 'SELECT revoked_at FROM oauth_grants WHERE id = ?', args: [grantId] })
    ).rows[0]!
    expect(row.revoked_at).toBe('2026-11-22T10:00:05.000Z')
    const settings = await web.get(page.location!)
    expect(settings.text).not.toContain('Agent Smith')
    expect(textOf(settings.text)).toContain('Agent disconnected.')
    expect((await web.post(`/settings/agents/${grantId}/revoke`)).status).toBe(404)
  })

  test('another person cannot revoke my grant (404, nothing changes), nor see it', async () => {
    const { h, userId } = await signedIn('grant-owner@example.com')
    const { grantId } = await insertAgent(h, userId, 'My agent', ['saved-items:read'])
    const { web: theirs } = await signedIn('grant-intruder@example.com', h)
    expect(theirs.last!.text).not.toContain('My agent')
    const before = await snapshot(h)
    expect((await theirs.post(`/settings/agents/${grantId}/revoke`)).status).toBe(404)
    expect(await snapshot(h)).toBe(before)
  })

  test('revoking while signed out sends the person to sign in and changes nothing', async () => {
    const { h, web, userId } = await signedIn('signedout@example.com')
    const { grantId } = await insertAgent(h, userId, 'Agent', ['saved-items:read'])
    await web.post('/sign-out')
    await web.get('/sign-in')
    const page = await web.post(`/settings/agents/${grantId}/revoke`)
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in')
    expect((await h.db.$client.execute('SELECT revoked_at FROM oauth_grants')).rows[0]!.revoked_at).toBeNull()
  })
})
