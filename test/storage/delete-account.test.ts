import { describe, expect, test } from 'bun:test'
import { deleteAccount } from '../../adapters/storage/delete-account.ts'
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/auth/api-keys.ts'
import { SCOPES } from '../../core/types.ts'
import { insertApiKey } from '../../adapters/storage/api-keys.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'
import { registerClient, signedIn, tokensFor } from '../oauth/oauth-helpers.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'

/** Every table's rows that mention `userId` anywhere (a whole-row text search), plus its counters. */
async function rowsOf(h: Harness, userId: string, extraNeedles: string[] = []): Promise<Record<string, number>> {
  const tables = (
    await h.db.$client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
    )
  ).rows.map((r) => String(r.name))
  const counts: Record<string, number> = {}
  for (const table of tables) {
    const rows = (await h.db.$client.execute(`SELECT * FROM ${table}`)).rows
    counts[table] = rows.filter((row) =>
      [userId, ...extraNeedles].some((needle) => JSON.stringify(row).includes(needle)),
    ).length
  }
  return counts
}

/** A person with something in every table: items (and jobs, an article, a highlight), a folder, keys, a grant with tokens, a session, codes, records. */
async function busyPerson(h: Harness, label: string): Promise<{ id: string; grantIds: string[]; ownIds: string[] }> {
  const browser = await signedIn(h)
  const user = { id: browser.userId }
  const full = await createKey(h, user.id)
  await h.call('POST', '/v1/captures', {
    token: full,
    body: { url: `https://example.com/${label}` },
    headers: { 'idempotency-key': `${label}-1` },
  })
  const [item] = (
    await h.db.$client.execute({ sql: 'SELECT id FROM saved_items WHERE user_id = ?', args: [user.id] })
  ).rows.map((r) => String(r.id))
  await h.db.$client.execute({
    sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p>Kept</p>', 'Kept', ?)",
    args: [item!, h.clock.now().toISOString()],
  })
  const highlight = await h.call('POST', `/v1/saved-items/${item}/highlights`, {
    token: full,
    body: { quote: { exact: 'Kept' } },
  })
  expect(highlight.status).toBe(201)
  // The article goes again (as when an extraction finds none; the highlight stays): an item deleted with its
  // article would leave a search_pending row for the background indexer, which this test does not run.
  await h.db.$client.execute({ sql: 'DELETE FROM item_contents WHERE item_id = ?', args: [item!] })
  await h.call('POST', '/v1/folders', { token: full, body: { name: `${label} folder` } })
  await h.call('POST', '/connect/authorize', { token: full, body: authorizeBody() })
  const client = await registerClient(h)
  await tokensFor(h, { clientId: client.client_id, browser, scope: 'saved-items:read offline_access' })
  const grants = (
    await h.db.$client.execute({ sql: 'SELECT id FROM oauth_grants WHERE user_id = ?', args: [user.id] })
  ).rows.map((r) => String(r.id))
  const keys = (
    await h.db.$client.execute({ sql: 'SELECT id FROM api_keys WHERE user_id = ?', args: [user.id] })
  ).rows.map((r) => String(r.id))
  const items = (
    await h.db.$client.execute({ sql: 'SELECT id FROM saved_items WHERE user_id = ?', args: [user.id] })
  ).rows.map((r) => String(r.id))
  return { id: user.id, grantIds: grants, ownIds: [...keys, ...items] }
}

async function createKey(h: Harness, userId: string): Promise<string> {
  const key = generateApiKey(random)
  await insertApiKey(h.db, {
    id: crypto.randomUUID(),
    userId,
    keyHash: hashApiKey(key),
    prefix: apiKeyDisplayPrefix(key),
    label: 'k',
    scopes: [...SCOPES],
    createdAt: h.clock.now().toISOString(),
  })
  return key
}

describe('deleteAccount()', () => {
  test('removes every row of the person in every table, and nothing of anyone else', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    const doomed = await busyPerson(h, 'doomed')
    const other = await busyPerson(h, 'other')
    const doomedNeedles = [...doomed.grantIds, ...doomed.ownIds]
    const before = await rowsOf(h, doomed.id, doomedNeedles)
    for (const table of [
      'users',
      'saved_items',
      'enrichment_jobs',
      'highlights',
      'folders',
      'api_keys',
      'oauth_grants',
      'oauth_refresh_tokens',
      'oauth_codes',
      'web_sessions',
      'connect_codes',
      'idempotency_keys',
      'rate_limits',
    ]) {
      expect({ table, rows: before[table]! > 0 }).toEqual({ table, rows: true })
    }
    const othersBefore = await rowsOf(h, other.id, [...other.grantIds, ...other.ownIds])

    expect(await deleteAccount(h.db, doomed.id)).toBe(true)

    const after = await rowsOf(h, doomed.id, doomedNeedles)
    expect(Object.values(after).every((n) => n === 0)).toBe(true)
    expect(await rowsOf(h, other.id, [...other.grantIds, ...other.ownIds])).toEqual(othersBefore)
    expect(await deleteAccount(h.db, doomed.id)).toBe(false)
  })
})
