/**
 * The baseline: a bare `Bun.serve` answering each path with a fixed JSON body (no routing framework, no
 * auth, no database). BODIES_FILE maps a path to { status, body }; run.ts fills it with a real response of
 * each scenario so both servers send the same bytes.
 *
 * With WRITE_DB set, it is the floor for a durable write instead: each POST also inserts its body into a
 * SQLite table in that file (bun:sqlite, WAL, synchronous=NORMAL, SQLite's own checkpoints), as the
 * simplest hand-written server that keeps what it is sent would.
 */
import { Database } from 'bun:sqlite'

const bodies = (await Bun.file(process.env.BODIES_FILE!).json()) as Record<string, { status: number; body: string }>
const fallback = { status: 200, body: '{"ok":true}' }
const headers = { 'content-type': 'application/json' }

let insert: ((body: string) => void) | null = null
if (process.env.WRITE_DB) {
  const db = new Database(process.env.WRITE_DB)
  db.exec('PRAGMA journal_mode=WAL')
  db.exec('PRAGMA synchronous=NORMAL')
  db.exec('CREATE TABLE IF NOT EXISTS kept (id TEXT PRIMARY KEY, body TEXT NOT NULL)')
  const statement = db.prepare('INSERT INTO kept (id, body) VALUES (?, ?)')
  insert = (body) => statement.run(crypto.randomUUID(), body)
}

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    // Read the body as our server has to, so POST scenarios compare like with like.
    if (request.method !== 'GET') {
      const body = await request.text()
      insert?.(body)
    }
    const { status, body } = bodies[new URL(request.url).pathname] ?? fallback
    return new Response(body, { status, headers })
  },
})
