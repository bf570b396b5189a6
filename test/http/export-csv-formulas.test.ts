import { describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { startImportWorker } from '../../adapters/jobs/import-worker.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'

// docs/import-export.md#export: GET /v1/export?format=csv writes no cell a spreadsheet would run as a
// formula (a leading `'` is added), and importing that file into another account removes it again: the
// same titles and folder names, exactly.

/** Titles a page could plant, and ones that only look like the export's own prefix. */
const TITLES = [
  '=HYPERLINK("http://evil.example","x")',
  '+1',
  '-10% off',
  '@SUM(1)',
  "'=already quoted",
  "''+two quotes",
  "'quoted'",
  "'",
  'Plain',
]
const FOLDERS = ["=cmd|' /C calc'!A0", "'-quoted folder", "'kept"]

async function person(h: Harness) {
  const key = await (await h.user()).key()
  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await h.call(method, path, { token: key, ...(body === undefined ? {} : { body }) })
    expect(reply.status, reply.text).toBeLessThan(300)
    return reply.body
  }
  return { key, call }
}

const shape = (items: any[]) =>
  items
    .map((item) => ({ url: item.normalizedUrl, title: item.title, folder: item.folder?.name ?? null, tags: item.tags }))
    .sort((a, b) => a.url.localeCompare(b.url))

describe('GET /v1/export?format=csv and formulas', () => {
  test('no cell starts as a formula, and importing the file back gives the same titles, folders and tags', async () => {
    const h = await createHarness({ env: { RATE_LIMIT_MAX: '100000' } })
    const from = await person(h)
    const folders = []
    for (const name of FOLDERS) folders.push((await from.call('POST', '/v1/folders', { name })).id as string)
    for (const [i, title] of TITLES.entries()) {
      const { savedItem } = await from.call('POST', '/v1/captures', {
        url: `https://formulas.example/${i}`,
        tags: i % 2 === 0 ? ['ai', 'security'] : [],
        ...(i < folders.length ? { folderId: folders[i] } : {}),
      })
      // Titles come from the pages (enrichment): stored here as a page would have them.
      await h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, savedItem.id] })
    }
    const original = shape((await from.call('GET', '/v1/saved-items')).savedItems)
    expect(original.map((item) => item.title).sort()).toEqual([...TITLES].sort())

    const exported = await h.call('GET', '/v1/export?format=csv', { token: from.key, unchecked: true })
    expect(exported.status).toBe(200)
    const records = parse(exported.text) as string[][]
    expect(records).toHaveLength(TITLES.length + 1)
    for (const record of records) for (const cell of record) expect(cell).not.toMatch(/^[=+\-@\t\r\n]/)
    const titleCells = records.slice(1).map((record) => record[1])
    expect(titleCells).toContain(`'=HYPERLINK("http://evil.example","x")`)
    expect(titleCells).toContain("''=already quoted")
    expect(titleCells).toContain("'quoted'")

    const to = await person(h)
    const upload = await h.call('POST', '/v1/imports', {
      token: to.key,
      raw: exported.text,
      headers: { 'content-type': 'text/csv' },
    })
    expect(upload.status).toBe(202)
    expect(upload.body.import.format).toBe('readlater')
    await startImportWorker(
      { db: h.db, clock: h.clock, random, log: () => {} },
      { batchSize: 4, pollMs: 10, leaseMs: 10_000 },
      false,
    ).drain()
    const job = await to.call('GET', `/v1/imports/${upload.body.import.id}`)
    expect(job.import).toMatchObject({ status: 'done', created: TITLES.length, skipped: 0 })
    expect(shape((await to.call('GET', '/v1/saved-items')).savedItems)).toEqual(original)
    expect(((await to.call('GET', '/v1/folders')).folders as any[]).map((folder) => folder.name).sort()).toEqual(
      [...FOLDERS].sort(),
    )
  })
})
