import { describe, expect, test } from 'bun:test'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { IMPORT_RETRY_AFTER_S, startImport } from '../../adapters/app/imports.ts'
import { MAX_IMPORT_THREADS, startImportReading } from '../../adapters/reading/import-threads.ts'
import { IMPORT_MAX_UNFINISHED } from '../../core/import/types.ts'
import type { Principal } from '../../core/types.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'

// docs/import-export.md#reading-budgets and #imports: what one import may cost, and how many a person may
// have waiting. Hostile files against a real server process are in test/e2e/hostile-imports.test.ts.

const POCKET = ['title,url,time_added,tags,status', 'One,https://example.com/one,1700000000,,unread'].join('\n')

const appDeps = (h: Harness) => ({ db: h.db, config: h.config, clock: h.clock, random, log: () => {} })
const principalOf = (userId: string): Principal => ({
  userId,
  scopes: ['saved-items:capture', 'folders:write'],
  credentialId: 'test',
  kind: 'api-key',
  connectClient: null,
  offlineAccess: false,
})

async function setup() {
  const h = await createHarness()
  const user = await h.user()
  const key = await user.key()
  const deps = { db: h.db, clock: h.clock, random, log: () => {} }
  const upload = (body: BodyInit, token = key) =>
    h.call('POST', '/v1/imports', { token, raw: body, headers: { 'content-type': 'text/csv' } })
  return { h, user, key, deps, upload }
}

describe(`at most ${IMPORT_MAX_UNFINISHED} imports queued or running per person`, () => {
  test('the next upload is 429 RateLimitExceeded with Retry-After, writes nothing, and is taken once one ends', async () => {
    const { h, key, deps, upload } = await setup()
    for (let i = 0; i < IMPORT_MAX_UNFINISHED; i++) expect((await upload(POCKET)).status).toBe(202)
    const refused = await upload(POCKET)
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({
      _tag: 'RateLimitExceeded',
      message: `3 of your imports are queued or running, the most at once; retry when one has ended (in about ${IMPORT_RETRY_AFTER_S} s)`,
    })
    expect(refused.headers.get('retry-after')).toBe(String(IMPORT_RETRY_AFTER_S))
    expect((await h.call('GET', '/v1/imports', { token: key })).body.imports).toHaveLength(IMPORT_MAX_UNFINISHED)

    // Another person is not held back by this one's imports.
    const other = await (await h.user()).key()
    expect((await upload(POCKET, other)).status).toBe(202)

    // One import run to its end frees a place.
    await startImportWorker(deps, { batchSize: 100, pollMs: 10, leaseMs: 10_000 }, false).drain(
      (await h.call('GET', '/v1/imports', { token: key })).body.imports.at(-1).id,
    )
    expect((await upload(POCKET)).status).toBe(202)
    expect((await upload(POCKET)).status).toBe(429)
  })

  test('a failed or finished import does not count', async () => {
    const { key, deps, upload, h } = await setup()
    const worker = startImportWorker(deps, { batchSize: 100, pollMs: 10, leaseMs: 10_000 }, false)
    for (let i = 0; i < IMPORT_MAX_UNFINISHED + 2; i++) {
      expect((await upload(POCKET)).status).toBe(202)
      await worker.drain()
    }
    const imports = (await h.call('GET', '/v1/imports', { token: key })).body.imports
    expect(imports.map((i: { status: string }) => i.status)).toEqual(Array(IMPORT_MAX_UNFINISHED + 2).fill('done'))
  })
})

describe('reading budgets', () => {
  // A CSV whose one row is 4 MiB of commas: csv-parse makes a cell of each, some 200 MiB of them.
  const commas = `title,url,time_added,tags,status\n${','.repeat(4 * 1024 * 1024)}x\n`

  test('an upload past the memory budget: 400 ImportFormatError naming it, nothing written', async () => {
    const { h, user, key } = await setup()
    const refusal = startImport(
      appDeps(h),
      principalOf(user.id),
      { bytes: new TextEncoder().encode(commas), format: null, contentType: 'text/csv' },
      { timeMs: 60_000, memoryBytes: 32 * 1024 * 1024 },
    )
    await expect(refusal).rejects.toMatchObject({
      _tag: 'ImportFormatError',
      message: 'reading the file needed more than 32 MiB of memory, the limit of an import; nothing was imported',
    })
    expect((await h.call('GET', '/v1/imports', { token: key })).body.imports).toEqual([])
  })

  test('an upload past the time budget: 400 ImportFormatError naming it, nothing written', async () => {
    const { h, user, key } = await setup()
    const rows = Array.from({ length: 50_000 }, (_, i) => `T${i},https://example.com/${i},1700000000,,unread`)
    const refusal = startImport(
      appDeps(h),
      principalOf(user.id),
      {
        bytes: new TextEncoder().encode(`title,url,time_added,tags,status\n${rows.join('\n')}`),
        format: null,
        contentType: 'text/csv',
      },
      { timeMs: 5, memoryBytes: 1024 * 1024 * 1024 },
    )
    await expect(refusal).rejects.toMatchObject({
      _tag: 'ImportFormatError',
      message: 'reading the file took longer than 5 ms, the limit of an import; nothing was imported',
    })
    expect((await h.call('GET', '/v1/imports', { token: key })).body.imports).toEqual([])
  })

  test('a job past its budget ends failed, with the reason as an error of line 0, and is not resumed', async () => {
    const { h, key, deps, upload } = await setup()
    const rows = Array.from({ length: 20_000 }, (_, i) => `T${i},https://example.com/${i},1700000000,,unread`)
    const accepted = await upload(`title,url,time_added,tags,status\n${rows.join('\n')}`)
    expect(accepted.status).toBe(202)
    const id = accepted.body.import.id
    // The upload read it within the default budget; this worker's budget is too small for the same file.
    await startImportWorker(
      deps,
      { batchSize: 100, pollMs: 10, leaseMs: 10_000, readBudget: { timeMs: 5, memoryBytes: 1024 * 1024 * 1024 } },
      false,
    ).drain()
    const failed = (await h.call('GET', `/v1/imports/${id}`, { token: key })).body.import
    expect(failed.status).toBe('failed')
    expect(failed.finishedAt).not.toBeNull()
    expect(failed.errors.at(-1)).toEqual({
      line: 0,
      message: 'reading the file took longer than 5 ms, the limit of an import',
    })
    // Nothing left to resume: a worker with room to spare finds no import to run.
    await startImportWorker(deps, { batchSize: 100, pollMs: 10, leaseMs: 10_000 }, false).drain()
    expect((await h.call('GET', `/v1/imports/${id}`, { token: key })).body.import.status).toBe('failed')
  })
})

describe(`at most ${MAX_IMPORT_THREADS} import threads alive in a process`, () => {
  test('the next reading waits for a free one, and gets it when one closes', async () => {
    const first = await startImportReading()
    const second = await startImportReading()
    let third: Awaited<ReturnType<typeof startImportReading>> | null = null
    const waiting = startImportReading().then((reading) => (third = reading))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(third).toBeNull()
    first.close()
    await waiting
    expect(third).not.toBeNull()
    // The thread it got works: it counts a file.
    const counted = await third!.request<{ format: string; total: number }>({
      kind: 'count',
      bytes: new TextEncoder().encode(POCKET),
      options: { format: null, contentType: 'text/csv', nowMs: Date.now() },
    })
    expect([counted.format, counted.total]).toEqual(['pocket', 1])
    second.close()
    third!.close()
  })
})
