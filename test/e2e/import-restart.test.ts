import { afterAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request, runServerCommand, startServer, type ServerProcess } from './processes.ts'

// docs/import-export.md#jobs: an import is a durable job. A real `bun server.ts` is killed with SIGKILL in
// the middle of a 40,000-entry import; a new one on the same file resumes after the last committed batch
// once the dead process's lease runs out, and every entry is applied exactly once.

const dir = mkdtempSync(join(tmpdir(), 'readlater-import-restart-'))
const dbFile = join(dir, 'db.sqlite')
const env = { DATABASE_URL: `file:${dbFile}` }
const servers: ServerProcess[] = []
const ENTRIES = 40_000

afterAll(async () => {
  for (const server of servers) await server.stop()
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a server killed mid-import: the next one finishes it, no entry lost or applied twice', async () => {
  expect(
    (await runServerCommand(['user', 'create', '--email', 'mover@example.com', '--password', 'a long password'], env))
      .code,
  ).toBe(0)
  const created = await runServerCommand(
    [
      'key',
      'create',
      '--email',
      'mover@example.com',
      '--scopes',
      'saved-items:capture,saved-items:read,folders:write',
      '--label',
      'm',
    ],
    env,
  )
  const key = created.stdout.at(-1)!
  const file = Array.from({ length: ENTRIES }, (_, i) => `https://site${i % 97}.example.com/post/${i}`).join('\n')

  const first = await startServer(env)
  servers.push(first)
  const reply = await fetch(`${first.url}/v1/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
    body: file,
  })
  expect(reply.status).toBe(202)
  const id = ((await reply.json()) as { import: { id: string } }).import.id
  const state = async (url: string) => (await request(url, 'GET', `/v1/imports/${id}`, { token: key })).body.import

  // Killed once some batches are in, well before the end.
  let processed = 0
  for (let i = 0; i < 400 && processed === 0; i++) {
    await sleep(10)
    processed = (await state(first.url)).processed
  }
  await first.crash()
  // The database holds exactly the committed batches: as many items as entries processed.
  const db = new Database(dbFile, { readonly: true })
  const atCrash = db.query('SELECT status, processed FROM imports WHERE id = ?').get(id) as {
    status: string
    processed: number
  }
  expect(atCrash.status).toBe('running')
  expect(atCrash.processed).toBeGreaterThan(0)
  expect(atCrash.processed).toBeLessThan(ENTRIES)
  expect((db.query('SELECT count(*) AS n FROM saved_items').get() as { n: number }).n).toBe(atCrash.processed)

  const second = await startServer(env)
  servers.push(second)
  let done: { status: string } = atCrash
  const deadline = Date.now() + 60_000
  while (done.status !== 'done' && Date.now() < deadline) {
    await sleep(200)
    done = await state(second.url)
  }
  expect(done).toMatchObject({
    status: 'done',
    total: ENTRIES,
    processed: ENTRIES,
    created: ENTRIES,
    updated: 0,
    skipped: 0,
  })
  expect((db.query('SELECT count(*) AS n FROM saved_items').get() as { n: number }).n).toBe(ENTRIES)
  db.close()
}, 120_000)
