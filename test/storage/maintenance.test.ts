import { describe, expect, test } from 'bun:test'
import { runMaintenance } from '../../adapters/storage/maintenance.ts'
import {
  idempotencyKeys,
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  rateLimits,
  webSessions,
} from '../../adapters/storage/schema.ts'
import { countRows, createHarness } from '../helpers/harness.ts'

const NOW = new Date('2026-11-22T10:00:00.000Z')
const iso = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString()
const DAY = 86_400_000

describe('runMaintenance()', () => {
  test('deletes only rows nothing will read again', async () => {
    const h = await createHarness()
    const user = await h.user()
    await h.db.insert(idempotencyKeys).values([
      {
        credentialId: 'key:k1',
        userId: user.id,
        key: 'old',
        fingerprint: 'f',
        state: 'done',
        lockedAtMs: 0,
        expiresAtMs: NOW.getTime() - 1,
      },
      {
        credentialId: 'key:k1',
        userId: user.id,
        key: 'live',
        fingerprint: 'f',
        state: 'done',
        lockedAtMs: 0,
        expiresAtMs: NOW.getTime() + 1,
      },
    ])
    await h.db.insert(rateLimits).values([
      { bucket: 'dead', windowStartMs: NOW.getTime() - 2 * DAY, count: 3 },
      { bucket: 'live', windowStartMs: NOW.getTime(), count: 3 },
    ])
    await h.db.insert(webSessions).values([
      { tokenHash: 'expired', userId: user.id, createdAt: iso(-31 * DAY), expiresAt: iso(-1) },
      { tokenHash: 'live', userId: user.id, createdAt: iso(0), expiresAt: iso(DAY) },
    ])
    await h.db.insert(oauthClients).values({
      id: 'c1',
      name: 'Agent',
      redirectUris: ['http://127.0.0.1/cb'],
      grantTypes: ['authorization_code'],
      scope: null,
      metadata: {},
      createdAt: iso(0),
    })
    await h.db.insert(oauthGrants).values([
      {
        id: 'g-live',
        userId: user.id,
        clientId: 'c1',
        scopes: ['folders:read'],
        resource: 'http://localhost:3000',
        createdAt: iso(0),
      },
      {
        id: 'g-revoked',
        userId: user.id,
        clientId: 'c1',
        scopes: ['folders:read'],
        resource: 'http://localhost:3000',
        createdAt: iso(0),
        revokedAt: iso(0),
      },
    ])
    await h.db.insert(oauthCodes).values([
      {
        codeHash: 'stale',
        grantId: 'g-live',
        clientId: 'c1',
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'x',
        expiresAt: iso(-DAY - 1),
      },
      {
        codeHash: 'recent',
        grantId: 'g-live',
        clientId: 'c1',
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: 'x',
        expiresAt: iso(-1),
      },
    ])
    await h.db.insert(oauthRefreshTokens).values([
      { tokenHash: 'spent-live', grantId: 'g-live', createdAt: iso(0), usedAt: iso(0) },
      { tokenHash: 'of-revoked', grantId: 'g-revoked', createdAt: iso(0) },
    ])

    await runMaintenance(h.db, NOW)

    const keys = async (sql: string) => (await h.db.$client.execute(sql)).rows.map((r) => r[0])
    expect(await keys('SELECT key FROM idempotency_keys')).toEqual(['live'])
    expect(await keys('SELECT bucket FROM rate_limits')).toEqual(['live'])
    expect(await keys('SELECT token_hash FROM web_sessions')).toEqual(['live'])
    expect(await keys('SELECT code_hash FROM oauth_codes')).toEqual(['recent'])
    // A spent refresh token of a live grant stays: reuse detection needs it.
    expect(await keys('SELECT token_hash FROM oauth_refresh_tokens')).toEqual(['spent-live'])
    expect(await countRows(h.db, 'oauth_grants')).toBe(2)
  })

  test('drops metadata-document clients read over a day ago that nobody consented to, and nothing else', async () => {
    const h = await createHarness()
    const user = await h.user()
    const client = (id: string, metadata: Record<string, unknown>) => ({
      id,
      name: id,
      redirectUris: ['http://127.0.0.1/cb'],
      grantTypes: ['authorization_code'],
      scope: null,
      metadata,
      createdAt: iso(-6 * DAY),
    })
    await h.db
      .insert(oauthClients)
      .values([
        client('https://stale.example/c.json', { client_id_metadata_document: true, fetched_at: iso(-DAY - 1) }),
        client('https://recent.example/c.json', { client_id_metadata_document: true, fetched_at: iso(-DAY + 60_000) }),
        client('https://consented.example/c.json', { client_id_metadata_document: true, fetched_at: iso(-7 * DAY) }),
        client('registered-without-grant', {}),
      ])
    await h.db.insert(oauthGrants).values({
      id: 'g',
      userId: user.id,
      clientId: 'https://consented.example/c.json',
      scopes: ['folders:read'],
      resource: 'http://localhost:3000',
      createdAt: iso(-7 * DAY),
      revokedAt: iso(-DAY),
    })

    await runMaintenance(h.db, NOW)

    const ids = (await h.db.$client.execute('SELECT id FROM oauth_clients ORDER BY id')).rows.map((r) => r[0])
    expect(ids).toEqual([
      'https://consented.example/c.json',
      'https://recent.example/c.json',
      'registered-without-grant',
    ])
  })

  test('drops registered clients nobody authorized within a week, keeps used and recent ones', async () => {
    const h = await createHarness()
    const user = await h.user()
    const client = (id: string, createdAt: string) => ({
      id,
      name: id,
      redirectUris: ['http://127.0.0.1/cb'],
      grantTypes: ['authorization_code'],
      scope: null,
      metadata: {},
      createdAt,
    })
    await h.db
      .insert(oauthClients)
      .values([
        client('unused-old', iso(-7 * DAY - 1)),
        client('unused-recent', iso(-7 * DAY + 60_000)),
        client('used-old', iso(-30 * DAY)),
        client('revoked-old', iso(-30 * DAY)),
      ])
    await h.db.insert(oauthGrants).values([
      {
        id: 'g1',
        userId: user.id,
        clientId: 'used-old',
        scopes: ['folders:read'],
        resource: 'http://localhost:3000',
        createdAt: iso(-29 * DAY),
      },
      {
        id: 'g2',
        userId: user.id,
        clientId: 'revoked-old',
        scopes: ['folders:read'],
        resource: 'http://localhost:3000',
        createdAt: iso(-29 * DAY),
        revokedAt: iso(-20 * DAY),
      },
    ])

    await runMaintenance(h.db, NOW)

    const ids = (await h.db.$client.execute('SELECT id FROM oauth_clients ORDER BY id')).rows.map((r) => r[0])
    expect(ids).toEqual(['revoked-old', 'unused-recent', 'used-old'])
  })
})
