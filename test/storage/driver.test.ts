import { describe, expect, test } from 'bun:test'
import { createHarness, TEST_DRIVER } from '../helpers/harness.ts'

// `npm test` runs the in-process suites on every driver: bun:sqlite (Bun's embedded), libsql's native engine
// (READLATER_TEST_DRIVER=libsql) and @libsql/client over a file (=client). This checks the switch switches.

describe('the test driver', () => {
  test(`harnesses open their database with the ${TEST_DRIVER} driver`, async () => {
    const h = await createHarness()
    expect(Boolean(h.db.$embedded)).toBe(TEST_DRIVER !== 'client')
    expect(h.db.$engine).toBe(TEST_DRIVER === 'embedded' ? 'bun:sqlite' : TEST_DRIVER)
    const key = await (await h.user()).key()
    const reply = await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/driver' } })
    expect(reply.status).toBe(201)
    expect(await h.db.$client.execute('SELECT count(*) AS n FROM saved_items')).toMatchObject({ rows: [{ n: 1 }] })
  })
})
