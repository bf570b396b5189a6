import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../adapters/storage/open-database.ts'
import { BUN, freePort, ROOT } from './processes.ts'

// The embedding example of docs/operations.md#embedding, run as written (only the port is swapped for a
// free one): per-IP limits must see each client's address. With the old handler signature Bun's Server
// object landed where the address belonged and every client shared one bucket.

const DOC = join(ROOT, process.env.EMBED_DOC ?? 'docs/operations.md')
const dir = mkdtempSync(join(tmpdir(), 'readlater-embed-'))
const script = join(ROOT, `.embed-example-${process.pid}.ts`)

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  try {
    unlinkSync(script)
  } catch {
    /* never written */
  }
})

/** The first TypeScript block of the section `## Embedding`. */
export function embeddingExample(markdown: string): string {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Embedding'))
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)
  if (!block) throw new Error('no ```ts block under "## Embedding"')
  return block[1]!
}

describe('the documented embedding example', () => {
  test('serves, and counts per-IP limits under the client address', async () => {
    const example = embeddingExample(readFileSync(DOC, 'utf8'))
    expect(example).toContain('Bun.serve(')
    expect(example).toContain('fetch: readlater.handle')
    const port = await freePort()
    expect(example).toMatch(/port: 3000/)
    writeFileSync(script, example.replace(/port: 3000/, `port: ${port}`))
    const database = join(dir, 'embed.db')
    const proc = Bun.spawn([BUN, script], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `file:${database}`, ENRICHMENT: 'off' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    try {
      let health: Response | null = null
      for (let i = 0; i < 200 && !health; i++) {
        health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null)
        if (!health) await Bun.sleep(50)
      }
      expect(health?.status).toBe(200)
      const exchange = await fetch(`http://127.0.0.1:${port}/connect/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client: 'raycast', code: 'nope', codeVerifier: 'nope' }),
      })
      expect(exchange.status).toBe(400)
      expect(exchange.headers.get('ratelimit-limit')).toBe('20')
    } finally {
      proc.kill()
      await proc.exited
    }
    const db = await openDatabase(`file:${database}`)
    const buckets = await db.$client.execute("SELECT bucket FROM rate_limits WHERE bucket LIKE 'ip:%'")
    db.$client.close()
    expect(buckets.rows.map((row) => row.bucket)).toEqual(['ip:/connect/exchange:127.0.0.1'])
  })
})
