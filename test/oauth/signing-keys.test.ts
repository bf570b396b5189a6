import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeProtectedHeader } from 'jose'
import {
  loadSigningKeys,
  RETIRED_KEY_GRACE_MS,
  rotateSigningKey,
  SigningKeyError,
} from '../../adapters/oauth/signing-keys.ts'
import { runMaintenance } from '../../adapters/storage/maintenance.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { createHarness, TestClock, type Harness } from '../helpers/harness.ts'
import { registerClient, send, signedIn, tokensFor } from './oauth-helpers.ts'
import { runServerCommand } from '../e2e/processes.ts'

// Token signing keys at rest and their rotation (docs/oauth.md#signing-keys).

const dir = mkdtempSync(join(tmpdir(), 'readlater-keys-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const SECRET = 'an encryption key of at least thirty-two characters'
let files = 0
const fileUrl = (): string => `file:${join(dir, `keys-${++files}.db`)}`

async function storedKeys(db: Database): Promise<{ kid: string; private_jwk: string; retired_at: string | null }[]> {
  return (await db.$client.execute('SELECT kid, private_jwk, retired_at FROM signing_keys ORDER BY created_at'))
    .rows as never
}

async function accessToken(h: Harness): Promise<string> {
  const client = await registerClient(h)
  return (await tokensFor(h, { clientId: client.client_id, browser: await signedIn(h), scope: 'saved-items:read' }))
    .access_token
}

const status = async (h: Harness, token: string): Promise<number> =>
  (await h.call('GET', '/v1/saved-items', { token })).status

describe('encryption at rest', () => {
  test('with ENCRYPTION_KEY the private key is stored as a JWE, never in clear, and tokens work', async () => {
    const h = await createHarness({ env: { ENCRYPTION_KEY: SECRET } })
    const token = await accessToken(h)
    expect(await status(h, token)).toBe(200)
    const [row] = await storedKeys(h.db)
    const stored = JSON.parse(row!.private_jwk)
    expect(Object.keys(stored)).toEqual(['jwe'])
    expect(stored.jwe.split('.')).toHaveLength(5)
    expect(row!.private_jwk).not.toContain('"d"')
  })

  test('a key stored in clear is encrypted in place once ENCRYPTION_KEY is set, and stays the same key', async () => {
    const url = fileUrl()
    const clear = await openDatabase(url)
    const before = await loadSigningKeys(clear, new TestClock())
    expect(JSON.parse((await storedKeys(clear))[0]!.private_jwk).d).toBeString()
    clear.$client.close()
    const db = await openDatabase(url)
    const after = await loadSigningKeys(db, new TestClock(), SECRET)
    expect(after.active.kid).toBe(before.active.kid)
    expect(Object.keys(JSON.parse((await storedKeys(db))[0]!.private_jwk))).toEqual(['jwe'])
    db.$client.close()
  })

  test('encrypted keys without ENCRYPTION_KEY, or with another one, refuse to load with a one-line reason', async () => {
    const url = fileUrl()
    const db = await openDatabase(url)
    await loadSigningKeys(db, new TestClock(), SECRET)
    db.$client.close()
    for (const [key, message] of [
      [undefined, /set ENCRYPTION_KEY/],
      ['another key that is also long enough to pass', /does not decrypt/],
    ] as const) {
      const reopened = await openDatabase(url)
      const error = await loadSigningKeys(reopened, new TestClock(), key).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SigningKeyError)
      expect((error as Error).message).toMatch(message)
      reopened.$client.close()
    }
    const server = await runServerCommand([], { DATABASE_URL: url, PORT: '0', ENRICHMENT: 'off' })
    expect(server.code).toBe(2)
    expect(server.stderr).toEqual([
      expect.stringMatching(/^error: the token signing keys are stored encrypted: set ENCRYPTION_KEY/),
    ])
  }, 20_000)
})

describe('rotation', () => {
  test('new tokens use the new key; tokens of the old key verify until they expire; then maintenance drops it', async () => {
    const h = await createHarness({ dbUrl: fileUrl() })
    const before = await accessToken(h)
    const oldKid = decodeProtectedHeader(before).kid!
    const { kid, retired } = await rotateSigningKey(h.db, h.clock)
    expect(retired).toEqual([oldKid])
    expect(kid).not.toBe(oldKid)

    const after = await accessToken(h)
    expect(decodeProtectedHeader(after).kid).toBe(kid)
    expect([await status(h, before), await status(h, after)]).toEqual([200, 200])
    const jwks = (await send(h, 'GET', '/api/auth/jwks')).body as { keys: { kid: string }[] }
    expect(jwks.keys.map((key) => key.kid).sort()).toEqual([kid, oldKid].sort())

    h.clock.advance(RETIRED_KEY_GRACE_MS + 1000)
    await runMaintenance(h.db, h.clock.now())
    expect((await storedKeys(h.db)).map((row) => row.kid)).toEqual([kid])
    expect(
      ((await send(h, 'GET', '/api/auth/jwks')).body as { keys: { kid: string }[] }).keys.map((key) => key.kid),
    ).toEqual([kid])
  })

  test('a rotation made by another process is seen within seconds: a token with the new kid verifies', async () => {
    const url = fileUrl()
    const clock = new TestClock()
    const first = await createHarness({ dbUrl: url, clock })
    expect(await status(first, await accessToken(first))).toBe(200) // its key set is now cached
    const cli = await openDatabase(url)
    const { kid } = await rotateSigningKey(cli, clock)
    const second = await createHarness({ dbUrl: url, clock })
    const token = await accessToken(second)
    expect(decodeProtectedHeader(token).kid).toBe(kid)
    // Unknown kids make a process read the key set again at most every 5 s (strangers cannot make it read
    // on every request), well before the one-minute cache would expire.
    clock.advance(5_000)
    expect(await status(first, token)).toBe(200)
    cli.$client.close()
  })

  test('bun server.ts signing-key rotate prints the new key and what it retired', async () => {
    const url = fileUrl()
    const db = await openDatabase(url)
    const { active } = await loadSigningKeys(db, new TestClock(), SECRET)
    db.$client.close()
    const rotated = await runServerCommand(['signing-key', 'rotate'], { DATABASE_URL: url, ENCRYPTION_KEY: SECRET })
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toEqual([
      expect.stringMatching(
        new RegExp(
          `^New signing key \\S+ is active; retired ${active.kid} \\(in the JWKS until its tokens expire\\)\\.$`,
        ),
      ),
    ])
    const without = await runServerCommand(['signing-key', 'rotate'], { DATABASE_URL: url })
    expect(without).toMatchObject({ code: 2, stderr: [expect.stringMatching(/set ENCRYPTION_KEY/)] })
  }, 20_000)
})
