import { beforeAll, describe, expect, test } from 'bun:test'
import { connectCodeStore, insertConnectCode } from '../../adapters/storage/connect-codes.ts'
import { createFolder } from '../../adapters/storage/folders.ts'
import { insertClient, insertGrantWithCode, insertRefreshToken } from '../../adapters/storage/oauth.ts'
import {
  findSavedItem,
  listSavedItems,
  listSavedItemsJson,
  upsertCapture,
  type ListQuery,
} from '../../adapters/storage/saved-items.ts'
import type { CursorValues } from '../../core/items/list-order.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import { describeItem } from '../../core/mcp/item-line.ts'
import { tokenStore } from '../../adapters/storage/token-store.ts'
import { exchangeConnectCode } from '../../core/connect/connect-exchange.ts'
import { uuidv7 } from '../../core/ids.ts'
import { mergeRecapture, prepareCapture, type CaptureInput, type RecaptureFields } from '../../core/items/capture.ts'
import { OAuthError } from '../../core/oauth/oauth-error.ts'
import { calculatePkceS256Challenge } from '../../core/oauth/pkce.ts'
import { redeemAuthorizationCode, rotateRefreshToken, type TokenStore } from '../../core/oauth/token-grants.ts'
import type { CaptureChannel, SavedItem, Tag } from '../../core/types.ts'
import { createHarness, random, TEST_DRIVER, type Harness } from '../helpers/harness.ts'

// The storage ports the protocol rules in core/ stand on (core/oauth/token-grants.ts, core/connect/
// connect-exchange.ts, core/items/capture.ts), held to their contract on the driver this run uses:
// `npm test` runs this file on the embedded driver, on libsql and on @libsql/client (the remote path).

const VERIFIER = 'v'.repeat(43)
const CHALLENGE = calculatePkceS256Challenge(VERIFIER)
const REDIRECT = 'http://127.0.0.1/cb'
const RESOURCE = 'http://localhost:3000/mcp'

let h: Harness
let store: TokenStore
let userId: string
let clientId: string
let counter = 0
const id = () => uuidv7(h.clock.now().getTime(), random)
const at = () => h.clock.now().toISOString()

beforeAll(async () => {
  h = await createHarness()
  store = tokenStore(h.db)
  userId = (await h.user()).id
  clientId = id()
  await insertClient(h.db, {
    id: clientId,
    name: 'contract client',
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code', 'refresh_token'],
    scope: null,
    metadata: {},
    createdAt: at(),
  })
})

/** A grant with one live authorization code (hash `code-N`) and one refresh token (hash `refresh-N`). */
async function grantWithSecrets(scopes = ['saved-items:read', 'offline_access']) {
  const n = ++counter
  const grantId = id()
  const codeHash = `code-${n}`
  const tokenHash = `refresh-${n}`
  await insertGrantWithCode(
    h.db,
    { id: grantId, userId, clientId, scopes, resource: RESOURCE, createdAt: at() },
    {
      codeHash,
      grantId,
      clientId,
      redirectUri: REDIRECT,
      codeChallenge: CHALLENGE,
      expiresAt: new Date(h.clock.now().getTime() + 300_000).toISOString(),
    },
  )
  await insertRefreshToken(h.db, { tokenHash, grantId, createdAt: at() })
  return { grantId, codeHash, tokenHash }
}

const redeem = (codeHash: string) =>
  redeemAuthorizationCode(
    store,
    { codeHash, redirectUri: REDIRECT, clientId, verifier: VERIFIER, resource: null },
    h.clock.now(),
  )

describe(`TokenStore on ${TEST_DRIVER}`, () => {
  test('finds each record with the fields the rules read, and null for what is not there', async () => {
    const { grantId, codeHash, tokenHash } = await grantWithSecrets()
    expect(await store.findClient(clientId)).toMatchObject({
      id: clientId,
      grantTypes: ['authorization_code', 'refresh_token'],
    })
    expect(await store.findGrant(grantId)).toMatchObject({
      id: grantId,
      userId,
      clientId,
      scopes: ['saved-items:read', 'offline_access'],
      resource: RESOURCE,
      revokedAt: null,
    })
    expect(await store.findCode(codeHash)).toMatchObject({
      codeHash,
      grantId,
      clientId,
      redirectUri: REDIRECT,
      usedAt: null,
    })
    expect(await store.findRefreshToken(tokenHash)).toMatchObject({ tokenHash, grantId, usedAt: null })
    expect(await store.findClient('nobody')).toBeNull()
    expect(await store.findGrant('nothing')).toBeNull()
    expect(await store.findCode('nothing')).toBeNull()
    expect(await store.findRefreshToken('nothing')).toBeNull()
  })

  test('of eight racing spends of one code, exactly one wins, and the code then shows when', async () => {
    const { codeHash } = await grantWithSecrets()
    const wins = await Promise.all(Array.from({ length: 8 }, () => store.spendCode(codeHash, at())))
    expect(wins.filter(Boolean)).toHaveLength(1)
    expect(await store.spendCode(codeHash, at())).toBe(false)
    expect((await store.findCode(codeHash))?.usedAt).toBe(at())
  })

  test('of eight racing spends of one refresh token, exactly one wins', async () => {
    const { tokenHash } = await grantWithSecrets()
    const wins = await Promise.all(Array.from({ length: 8 }, () => store.spendRefreshToken(tokenHash, at())))
    expect(wins.filter(Boolean)).toHaveLength(1)
    expect((await store.findRefreshToken(tokenHash))?.usedAt).toBe(at())
  })

  test('revoking a grant shows on the grant', async () => {
    const { grantId } = await grantWithSecrets()
    await store.revokeGrant(grantId, at())
    expect((await store.findGrant(grantId))?.revokedAt).toBe(at())
  })

  test('the rules on this store: a code redeems once; its replay revokes the grant', async () => {
    const { grantId, codeHash } = await grantWithSecrets()
    const issued = await redeem(codeHash)
    expect(issued).toMatchObject({ grant: { id: grantId }, withRefresh: true })
    const replay = await redeem(codeHash).catch((error: unknown) => error)
    expect(replay).toBeInstanceOf(OAuthError)
    expect((replay as OAuthError).error).toBe('invalid_grant')
    expect((await store.findGrant(grantId))?.revokedAt).not.toBeNull()
  })

  test('the rules on this store: racing redemptions of one code issue tokens once', async () => {
    const { codeHash } = await grantWithSecrets()
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => redeem(codeHash)))
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
  })

  test('the rules on this store: a refresh token rotates once; its replay revokes the grant', async () => {
    const { grantId, tokenHash } = await grantWithSecrets()
    const rotate = () =>
      rotateRefreshToken(store, { tokenHash, clientId, scope: 'saved-items:read', resource: null }, h.clock.now())
    expect(await rotate()).toMatchObject({ grant: { id: grantId }, scopes: ['saved-items:read'], withRefresh: true })
    await expect(rotate()).rejects.toBeInstanceOf(OAuthError)
    expect((await store.findGrant(grantId))?.revokedAt).not.toBeNull()
  })
})

describe(`ConnectCodeStore on ${TEST_DRIVER}`, () => {
  async function connectCode(expiresAt: string): Promise<string> {
    const codeHash = `connect-${++counter}`
    await insertConnectCode(h.db, {
      codeHash,
      userId,
      client: 'raycast',
      redirectUri: 'raycast://extensions/readlater',
      codeChallenge: CHALLENGE,
      scopes: ['saved-items:capture'],
      label: 'Raycast',
      expiresAt,
    })
    return codeHash
  }

  test('of eight racing spends of one code, exactly one gets it', async () => {
    const codeHash = await connectCode(new Date(h.clock.now().getTime() + 60_000).toISOString())
    const spent = await Promise.all(
      Array.from({ length: 8 }, () => connectCodeStore(h.db).spendConnectCode(codeHash, at())),
    )
    expect(spent.filter((row) => row !== null)).toHaveLength(1)
    expect(spent.find((row) => row !== null)).toMatchObject({ codeHash, client: 'raycast', codeChallenge: CHALLENGE })
  })

  test('a code is live until its expiry inclusive, then spends to nothing', async () => {
    const expiry = new Date(h.clock.now().getTime() + 60_000).toISOString()
    const onTime = await connectCode(expiry)
    expect(await connectCodeStore(h.db).spendConnectCode(onTime, expiry)).not.toBeNull()
    const late = await connectCode(expiry)
    expect(
      await connectCodeStore(h.db).spendConnectCode(late, new Date(Date.parse(expiry) + 1).toISOString()),
    ).toBeNull()
  })

  test('the rules on this store: a wrong verifier still spends the code', async () => {
    const codeHash = await connectCode(new Date(h.clock.now().getTime() + 60_000).toISOString())
    const request = { client: 'raycast', codeHash, codeVerifier: 'w'.repeat(43) }
    await expect(exchangeConnectCode(connectCodeStore(h.db), request, h.clock.now())).rejects.toMatchObject({
      code: 'invalid_verifier',
    })
    await expect(
      exchangeConnectCode(connectCodeStore(h.db), { ...request, codeVerifier: VERIFIER }, h.clock.now()),
    ).rejects.toMatchObject({ code: 'invalid_code' })
  })
})

describe(`the recapture upsert on ${TEST_DRIVER}`, () => {
  // Every state a stored item can be in, each recaptured twice, the 16 kinds of capture in rotation (each
  // kind meets 12 stored states): 192 cases, quick enough on the remote driver too.
  const storedStates = (folder: string) =>
    [null, 'Stored source'].flatMap((sourceName) =>
      (['api', 'raycast'] as CaptureChannel[]).flatMap((captureChannel) =>
        ([[], ['ai', 'tools']] as Tag[][]).flatMap((tags) =>
          [null, folder].flatMap((folderId) =>
            [true, false].flatMap((isRead) =>
              ['pending', 'enriched', 'failed'].map((enrichmentStatus) => ({
                sourceName,
                captureChannel,
                tags,
                folderId,
                isRead,
                enrichmentStatus,
              })),
            ),
          ),
        ),
      ),
    )
  const captures = (folder: string): Omit<CaptureInput, 'url'>[] =>
    [null, 'New source'].flatMap((sourceName) =>
      ([null, 'ios-app'] as (CaptureChannel | null)[]).flatMap((captureChannel) =>
        ([[], ['tools', 'design']] as Tag[][]).flatMap((tags) =>
          [null, folder].map((folderId) => ({ sourceName, captureChannel, tags, folderId })),
        ),
      ),
    )

  test('applies mergeRecapture exactly, for every stored state and every kind of capture', async () => {
    const folderA = (await createFolder(h.db, { id: id(), userId, name: 'A', nameKey: 'a', now: at() })).id
    const folderB = (await createFolder(h.db, { id: id(), userId, name: 'B', nameKey: 'b', now: at() })).id
    const mismatches: string[] = []
    let n = 0
    const kinds = captures(folderB)
    for (const [i, stored] of storedStates(folderA).entries()) {
      for (const capture of [kinds[i % 16]!, kinds[(i * 7 + 3) % 16]!]) {
        const url = `https://example.com/recapture/${++n}`
        const first = prepareCapture(
          {
            url,
            sourceName: stored.sourceName,
            captureChannel: stored.captureChannel,
            tags: stored.tags,
            folderId: stored.folderId,
          },
          { id: id(), userId, now: h.clock.now(), connectClient: null },
        )
        const { item } = await upsertCapture(h.db, first)
        await h.db.$client.execute({
          sql: 'UPDATE saved_items SET is_read = ?, enrichment_status = ? WHERE id = ?',
          args: [stored.isRead ? 1 : 0, stored.enrichmentStatus, item.id],
        })
        const before = fieldsOf((await findSavedItem(h.db, userId, item.id))!)
        h.clock.advance(1000)
        const again = prepareCapture({ url, ...capture }, { id: id(), userId, now: h.clock.now(), connectClient: null })
        const result = await upsertCapture(h.db, again)
        expect(result.created).toBe(false)
        const after = fieldsOf((await findSavedItem(h.db, userId, item.id))!)
        const expected = mergeRecapture(before, again)
        if (JSON.stringify(after) !== JSON.stringify(expected))
          mismatches.push(
            `${JSON.stringify({ stored, capture })}: ${JSON.stringify(after)} ≠ ${JSON.stringify(expected)}`,
          )
      }
    }
    expect(n).toBe(96 * 2)
    expect(mismatches).toEqual([])
  })

  test('a first save answers with exactly the item a read returns, in a folder or not', async () => {
    const folder = (await createFolder(h.db, { id: id(), userId, name: 'First', nameKey: 'first', now: at() })).id
    for (const input of [
      { url: 'https://example.com/first/plain' },
      {
        url: 'https://Example.com/first/full?b=2&a=1#x',
        sourceName: 'Feed',
        captureChannel: 'ios-app' as const,
        tags: ['tools', 'ai', 'tools'] as const,
      },
      { url: 'https://example.com/first/foldered.pdf', folderId: folder, tags: ['security'] as const },
    ]) {
      const prepared = prepareCapture(input, { id: id(), userId, now: h.clock.now(), connectClient: null })
      const { created, item } = await upsertCapture(h.db, prepared)
      expect(created).toBe(true)
      expect(item).toEqual((await findSavedItem(h.db, userId, item.id))!)
    }
  })
})

describe(`the list's rows on ${TEST_DRIVER}`, () => {
  // The list reads rows by column name (itemFromNamedRow), a single read positionally (itemFromRow).
  test('list rows, read by name, are the items a positional read finds, on every sort; a JSON page is their wire shape', async () => {
    const folder = id()
    await createFolder(h.db, { id: folder, userId, name: 'Twins', nameKey: 'twins', now: at() })
    for (const input of [
      { url: 'https://example.com/twin/plain' },
      { url: 'https://example.com/twin/tagged', tags: ['tools', 'ai'] as const, sourceName: 'Feed', folderId: folder },
    ])
      await upsertCapture(h.db, prepareCapture(input, { id: id(), userId, now: h.clock.now(), connectClient: null }))
    // Every nullable column filled on one item, read and opened on another.
    await h.db.$client.execute({
      sql: `UPDATE saved_items SET title = 'A title', description = 'd', site_name = 's', favicon_url = 'https://f/a.ico',
        favicon_light_url = 'https://f/l.ico', favicon_dark_url = 'https://f/d.ico', image_url = 'https://f/i.png',
        canonical_url = 'https://example.com/c', preview_summary = 'p', enrichment_status = 'enriched'
        WHERE user_id = ? AND normalized_url = 'https://example.com/twin/tagged'`,
      args: [userId],
    })
    await h.db.$client.execute({
      sql: `UPDATE saved_items SET is_read = 1, opened_at = ? WHERE user_id = ? AND normalized_url = 'https://example.com/twin/plain'`,
      args: [at(), userId],
    })
    for (const sort of ['newest', 'oldest', 'title'] as const) {
      const query = { sort, folder: null, limit: null, after: null }
      const items = (await listSavedItems(h.db, userId, query)).items
      const twins = items.map(toSavedItemDto)
      expect(items.length).toBeGreaterThan(3)
      expect(`{"savedItems":[${(await listSavedItemsJson(h.db, userId, query)).items}]}`).toBe(
        JSON.stringify({ savedItems: twins }),
      )
      // The list reads rows by column name (itemFromNamedRow); a single read is positional (itemFromRow).
      for (const item of items) expect(item).toEqual((await findSavedItem(h.db, userId, item.id))!)
      expect(items.some((item) => item.openedAt !== null)).toBe(true)
      // A JSON page's next cursor is made from its last item: it must name the same row by the same keys.
      for (const limit of [1, 2, 3]) {
        const short = { ...query, limit }
        const json = await listSavedItemsJson(h.db, userId, short)
        const whole = await listSavedItems(h.db, userId, short)
        expect(json.nextCursorValues).not.toBeNull()
        expect(json.nextCursorValues).toEqual(whole.nextCursorValues)
        expect((JSON.parse(`[${json.items}]`) as { id: string }[]).map((item) => item.id)).toEqual(
          whole.items.map((item) => item.id),
        )
      }
      expect(twins.some((item) => item.folder?.name === 'Twins' && item.title === 'A title')).toBe(true)
      expect(twins.some((item) => item.isRead)).toBe(true)
    }
  })
})

describe(`the list's JSON pages on ${TEST_DRIVER}`, () => {
  // A speed twin (docs/benchmarks.md#speed-twins): a list page is written by SQLite (WIRE_JSON), and must be the
  // bytes JSON.stringify makes of the same page read as items, with the same next cursor.
  test('every page, on every sort, folder filter and page size, is JSON.stringify of its items’ wire shapes, byte for byte, and pages on by the same cursors', async () => {
    const folder = id()
    await createFolder(h.db, { id: folder, userId, name: 'Wörk "quoted"', nameKey: 'json-twins', now: at() })
    const titles = [
      'Alpha',
      'alpha',
      'Éclair',
      'éclair',
      'ZETA',
      'a ,{"id":"fake"} title',
      'back\\slash and "quotes"',
      'control \u0001 \n \t \u001f characters',
      'emoji 🦊 and \u2028 separators',
      'delete \u007f and a lone \ud83e half',
      null,
      '',
    ]
    for (const [i, title] of titles.entries()) {
      const input = {
        url: `https://example.com/json-twin/${i}`,
        tags: i % 3 === 0 ? (['tools', 'ai'] as const) : undefined,
        folderId: i % 2 === 0 ? folder : undefined,
        sourceName: i % 4 === 0 ? 'Feed ,{"id":' : undefined,
      }
      const { item } = await upsertCapture(
        h.db,
        prepareCapture(input, { id: id(), userId, now: h.clock.now(), connectClient: null }),
      )
      await h.db.$client.execute({
        sql: 'UPDATE saved_items SET title = ?, is_read = ?, description = ?, enrichment_status = ? WHERE id = ?',
        args: [
          title,
          i % 3 === 1 ? 1 : 0,
          i % 5 === 0 ? `d${i} </script>` : null,
          i % 2 === 0 ? 'pending' : 'enriched',
          item.id,
        ],
      })
    }
    let pages = 0
    for (const sort of ['newest', 'oldest', 'title', 'unread'] as const)
      for (const folderFilter of [null, folder, 'none'])
        for (const limit of [1, 2, 3, 500, null]) {
          let after: CursorValues | null = null
          for (let page = 0; page < 40; page++) {
            const query: ListQuery = { sort, folder: folderFilter, limit, after }
            const objects = await listSavedItems(h.db, userId, query)
            const dtos = objects.items.map(toSavedItemDto)
            const json = await listSavedItemsJson(h.db, userId, query)
            expect(`{"savedItems":[${json.items}]}`).toBe(JSON.stringify({ savedItems: dtos }))
            expect(json.nextCursorValues).toEqual(objects.nextCursorValues)
            expect(json.lines).toBeNull()
            expect(json.count).toBe(dtos.length)
            // MCP's page: the same JSON, and each item's line of its text (ITEM_LINE) as JSON.stringify of
            // describeItem's words, one per line.
            const lined = await listSavedItemsJson(h.db, userId, query, true)
            expect(lined).toEqual({
              ...json,
              lines: dtos.map((dto) => JSON.stringify(describeItem(dto))).join('\n'),
            })
            pages++
            if (objects.nextCursorValues === null) break
            after = objects.nextCursorValues
          }
        }
    expect(pages).toBeGreaterThan(100)
  })
})

function fieldsOf(item: SavedItem): RecaptureFields {
  const { sourceName, captureChannel, tags, folder, isRead, enrichmentStatus, lastSavedAt, updatedAt } = item
  return {
    sourceName,
    captureChannel,
    tags,
    folderId: folder?.id ?? null,
    isRead,
    enrichmentStatus,
    lastSavedAt,
    updatedAt,
  }
}
