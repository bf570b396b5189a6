import { describe, expect, test } from 'bun:test'
import { createHarness, TEST_DRIVER } from '../helpers/harness.ts'

// `npm test` runs the in-process suites twice: on the embedded driver and, with READLATER_TEST_DRIVER=client,
// on @libsql/client (the remote databases' driver) over a file. This checks the switch really switches.

describe('the test driver', () => {
  test(`harnesses open their database with the ${TEST_DRIVER} driver`, async () => {
    const h = await createHarness()
    expect(Boolean(h.db.$embedded)).toBe(TEST_DRIVER === 'embedded')
    const key = await (await h.user()).key()
    const reply = await h.call('POST', '/v1/captures', { token: key, body: { url: 'https://example.com/driver' } })
    expect(reply.status).toBe(201)
    expect(await h.db.$client.execute('SELECT count(*) AS n FROM saved_items')).toMatchObject({ rows: [{ n: 1 }] })
  })
})
