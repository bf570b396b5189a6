import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { deflateSync, zipSync } from 'fflate'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { craftZip } from '../fixtures/import/read-fixture.ts'
import { request, runServerCommand, startServer, type ServerProcess } from './processes.ts'

// docs/import-export.md#reading-budgets: import files made to stall the server, sent to a real
// `bun server.ts` the way an attacker would, while /health is asked every 50 ms. Each file gets its
// own specific answer, no /health answer waits a second behind it, and the server's memory stays
// within 1 GiB of what it was idle. Before import files were read on threads under budgets, the first
// of these froze every request for about 10 s, and the comma row took 1.36 GB.

const MiB = 1024 * 1024
const POCKET_HEADER = 'title,url,time_added,tags,status\n'
const dir = mkdtempSync(join(tmpdir(), 'readlater-hostile-imports-'))
const env = { DATABASE_URL: `file:${join(dir, 'db.sqlite')}` }
let server: ServerProcess
let key: string

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const encoder = new TextEncoder()

/** Resident memory of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!
  return Number(/(\d+)/.exec(line)![1]) * 1024
}

/** A zip whose central directory names `copies` entries that all point at the first entry's bytes. */
function manyNamesOnePayload(copies: number): Uint8Array {
  const payload = encoder.encode(POCKET_HEADER + 'A,https://a.example/,1600000000,,unread\n'.repeat(20_000))
  const zip = zipSync({ 'part_000000.csv': payload })
  const view = new DataView(zip.buffer)
  const end = zip.length - 22
  const directoryOffset = view.getUint32(end + 16, true)
  const record = zip.slice(directoryOffset, end)
  const out = new Uint8Array(directoryOffset + record.length * copies + 22)
  out.set(zip.subarray(0, directoryOffset))
  for (let i = 0; i < copies; i++) {
    const copy = record.slice()
    copy.set(encoder.encode(`part_${String(i).padStart(6, '0')}.csv`), 46)
    out.set(copy, directoryOffset + i * record.length)
  }
  const tail = zip.slice(end)
  const tailView = new DataView(tail.buffer)
  tailView.setUint16(8, copies, true)
  tailView.setUint16(10, copies, true)
  tailView.setUint32(12, record.length * copies, true)
  out.set(tail, directoryOffset + record.length * copies)
  return out
}

interface Hostile {
  name: string
  file: () => Uint8Array
  type: string
  /** The upload's answer: 202 with the total, or 400 with this message. */
  expected: { total: number } | { message: string }
}

const files: Hostile[] = [
  {
    name: "F1: a 1 KB zip of Pocket's CSV, a header and 1 MiB of newlines",
    file: () => zipSync({ 'part_000000.csv': encoder.encode(POCKET_HEADER + '\n'.repeat(MiB)) }),
    type: 'application/zip',
    expected: { total: 0 },
  },
  {
    name: 'F1: a 45 MiB Pocket CSV of newlines',
    file: () => encoder.encode(POCKET_HEADER + '\n'.repeat(45 * MiB)),
    type: 'text/csv',
    expected: { total: 0 },
  },
  {
    name: 'F2: 40 MB of [',
    file: () => encoder.encode('['.repeat(40_000_000)),
    type: 'application/json',
    expected: { message: 'the JSON nests deeper than 32 levels; no export does' },
  },
  {
    name: 'F2: an Omnivore zip of 30 MB of [ in a few kilobytes',
    file: () => zipSync({ 'metadata_0_to_1.json': encoder.encode('['.repeat(30_000_000)) }),
    type: 'application/zip',
    expected: { message: 'the JSON of metadata_0_to_1.json nests deeper than 32 levels; no export does' },
  },
  {
    name: 'F3: a 45 MiB CSV of one row of commas',
    file: () => encoder.encode(POCKET_HEADER + ','.repeat(45 * MiB) + '\n'),
    type: 'text/csv',
    expected: {
      message: 'reading the file needed more than 512 MiB of memory, the limit of an import; nothing was imported',
    },
  },
  {
    name: 'F3: a zip of 190 entries pointing at one payload',
    file: () => manyNamesOnePayload(190),
    type: 'application/zip',
    expected: { message: 'the zip is damaged: its entries overlap (part_000000.csv and part_000001.csv share bytes)' },
  },
  {
    name: 'F3: a zip entry that declares 1 KiB and inflates to 200 MiB',
    file: () =>
      craftZip([
        {
          name: 'part_000000.csv',
          data: deflateSync(new Uint8Array(200 * MiB)),
          method: 8,
          declaredSize: 1024,
          crc32: 0,
        },
      ]),
    type: 'application/zip',
    expected: { message: 'the zip is damaged: part_000000.csv inflates past the 1024 bytes it declares' },
  },
]

beforeAll(async () => {
  const user = ['user', 'create', '--email', 'attacker@example.com', '--password', 'a long password']
  expect((await runServerCommand(user, env)).code).toBe(0)
  const scopes = 'saved-items:capture,saved-items:read,folders:write'
  const created = await runServerCommand(
    ['key', 'create', '--email', 'attacker@example.com', '--scopes', scopes, '--label', 'x'],
    env,
  )
  key = created.stdout.at(-1)!
  server = await startServer(env)
})

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('hostile import files never stall the server (docs/import-export.md#reading-budgets)', () => {
  for (const hostile of files) {
    test(hostile.name, async () => {
      const body = hostile.file()
      await sleep(200)
      const idle = rssOf(server.pid)
      let polling = true
      let longestGap = 0
      let peak = idle
      const poller = (async () => {
        let last = performance.now()
        while (polling) {
          const response = await fetch(`${server.url}/health`)
          expect(response.status).toBe(200)
          const now = performance.now()
          longestGap = Math.max(longestGap, now - last)
          last = now
          peak = Math.max(peak, rssOf(server.pid))
          await sleep(50)
        }
      })()
      const reply = await fetch(`${server.url}/v1/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': hostile.type },
        body: new Blob([body as BlobPart]),
      })
      const answer = (await reply.json()) as any
      if ('total' in hostile.expected) {
        expect(reply.status).toBe(202)
        expect(answer.import.total).toBe(hostile.expected.total)
        // The job reads the file again on the server's import thread: it ends, and is not left running.
        let job = answer.import
        for (let i = 0; i < 200 && (job.status === 'queued' || job.status === 'running'); i++) {
          await sleep(50)
          job = (await request(server.url, 'GET', `/v1/imports/${job.id}`, { token: key })).body.import
        }
        expect(job).toMatchObject({ status: 'done', total: hostile.expected.total, errors: [] })
      } else {
        expect(reply.status).toBe(400)
        expect(answer).toEqual({ _tag: 'ImportFormatError', message: hostile.expected.message })
      }
      await sleep(300)
      polling = false
      await poller
      expect(longestGap).toBeLessThan(1000)
      expect(peak - idle).toBeLessThan(1024 * MiB)
    }, 60_000)
  }

  test('nothing of the refused files was written', async () => {
    const imports = (await request(server.url, 'GET', '/v1/imports', { token: key })).body.imports
    expect(imports.map((i: { status: string; total: number }) => [i.status, i.total])).toEqual([
      ['done', 0],
      ['done', 0],
    ])
  })
})
