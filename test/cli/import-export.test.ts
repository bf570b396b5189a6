import { afterAll, describe, expect, test } from 'bun:test'
import { unzipSync } from 'fflate'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli, type CliDeps, type CliIo } from '../../adapters/cli/run-cli.ts'
import { readConfig } from '../../adapters/config.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { TestClock, random } from '../helpers/harness.ts'
import { readBook } from '../core/export/epub-fixtures.ts'

// docs/import-export.md#cli: `import` reads the file as the API does, runs the job with a progress bar on a
// terminal and prints a summary; `export` streams the library to standard output.

const dir = mkdtempSync(join(tmpdir(), 'readlater-cli-import-'))
const dbUrl = `file:${join(dir, 'cli.db')}`
const opened: Database[] = []
const deps: CliDeps = {
  async openDb() {
    const handle = await openDatabase(dbUrl)
    opened.push(handle)
    return handle
  },
  config: readConfig({ DATABASE_URL: dbUrl }),
  clock: new TestClock(),
  random,
  readStdin: async () => '',
  readFile: async (path: string) => new Uint8Array(await Bun.file(path).arrayBuffer()),
}

afterAll(() => {
  for (const handle of opened) handle.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

async function cli(argv: string[], terminal = false) {
  const out: string[] = []
  const err: string[] = []
  const progress: (string | null)[] = []
  const written: string[] = []
  const bytes: Uint8Array[] = []
  const io: CliIo = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    write: async (chunk) => {
      if (typeof chunk === 'string') written.push(chunk)
      else bytes.push(chunk)
    },
    ...(terminal ? { progress: (line: string | null) => progress.push(line) } : {}),
  }
  const code = await runCli(argv, deps, io)
  return { code, out, err, progress, written: written.join(''), bytes: Buffer.concat(bytes) }
}

const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

describe('import', () => {
  test('a URL list: a progress bar on a terminal, the summary line, each error on stderr', async () => {
    expect(
      (await cli(['user', 'create', '--email', 'cli-importer@example.com', '--password', 'a long password'])).code,
    ).toBe(0)
    const path = file('urls.txt', 'https://example.com/one\n# a comment\nhttps://example.com/two\nnot a url\n')
    const result = await cli(['import', '--email', 'cli-importer@example.com', '--file', path], true)
    expect(result.code).toBe(0)
    expect(result.out).toEqual(['Imported 3 entries (urls): 2 created, 0 updated, 1 skipped.'])
    expect(result.err).toEqual([expect.stringMatching(/^line 4: /)])
    expect(result.progress.at(-1)).toBeNull()
    expect(result.progress).toContain('[##############################] 100% 3/3 entries')
    // Not a terminal: no bar at all, the same summary.
    const again = await cli(['import', '--email', 'cli-importer@example.com', '--file', path])
    expect(again.progress).toEqual([])
    expect(again.out).toEqual(['Imported 3 entries (urls): 0 created, 2 updated, 1 skipped.'])
  })

  test('a file that is no supported format: one line on stderr, exit 1, nothing imported', async () => {
    const path = file('notes.txt', 'hello there\nnothing to see\n')
    const result = await cli(['import', '--email', 'cli-importer@example.com', '--file', path])
    expect(result.code).toBe(1)
    expect(result.err).toEqual([expect.stringMatching(/^error: /)])
    const db = await deps.openDb()
    expect((await db.$client.execute("SELECT count(*) AS n FROM imports WHERE status = 'queued'")).rows[0]!.n).toBe(0)
  })

  test('three imports of the person already queued: one line on stderr, exit 1, nothing queued', async () => {
    const db = await deps.openDb()
    const [user] = (await db.$client.execute("SELECT id FROM users WHERE email = 'cli-importer@example.com'")).rows
    for (let i = 0; i < 3; i++) {
      await db.$client.execute({
        sql: `INSERT INTO imports (id, user_id, format, status, total, processed, created, updated, skipped,
          folder_names, dropped_tags, errors, created_at) VALUES (?, ?, 'urls', 'queued', 0, 0, 0, 0, 0, '[]', '[]', '[]', ?)`,
        args: [crypto.randomUUID(), user!.id as string, new Date().toISOString()],
      })
    }
    const path = file('waiting.txt', 'https://example.com/waiting\n')
    const result = await cli(['import', '--email', 'cli-importer@example.com', '--file', path])
    expect(result.code).toBe(1)
    expect(result.err).toEqual([
      'error: 3 of your imports are queued or running, the most at once; retry when one has ended (in about 10 s)',
    ])
    const queued = await db.$client.execute("SELECT count(*) AS n FROM imports WHERE status = 'queued'")
    expect(queued.rows[0]!.n).toBe(3)
    await db.$client.execute("DELETE FROM imports WHERE status = 'queued'")
  })

  test('bad arguments: exit 2; an unknown account: exit 1', async () => {
    expect((await cli(['import', '--email', 'x@example.com'])).code).toBe(2)
    expect((await cli(['import', '--email', 'cli-importer@example.com', '--file', 'a', '--format', 'xml'])).code).toBe(
      2,
    )
    const path = file('one.txt', 'https://example.com/one\n')
    expect((await cli(['import', '--email', 'nobody@example.com', '--file', path])).code).toBe(1)
  })
})

describe('export', () => {
  test('each format to standard output; the JSON holds every item', async () => {
    const json = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'json'])
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.written)
    expect(parsed.format).toBe('readlater')
    expect(parsed.savedItems.map((i: any) => i.normalizedUrl).sort()).toEqual([
      'https://example.com/one',
      'https://example.com/two',
    ])
    const csv = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'csv'])
    expect(csv.written.split('\r\n')[0]).toBe(
      'url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,type,description,site_name,source_name,id,host,preview_summary,image_url,canonical_url,favicon_url,favicon_light_url,favicon_dark_url,enrichment_status,capture_channel,updated_at',
    )
    const html = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'netscape'])
    expect(html.written.startsWith('<!DOCTYPE NETSCAPE-Bookmark-file-1>')).toBe(true)
    expect((await cli(['export', '--email', 'cli-importer@example.com', '--format', 'yaml'])).code).toBe(2)
  })

  test('markdown: the zip of highlights as bytes to standard output (highlights brought in by import)', async () => {
    const withHighlights = JSON.stringify({
      format: 'readlater',
      version: 1,
      savedItems: [
        {
          originalUrl: 'https://example.com/one',
          title: 'One: "first"',
          highlights: [{ quote: { exact: 'a passage' }, note: 'my note', color: 'blue' }],
        },
      ],
    })
    const path = file('highlights.json', withHighlights)
    const imported = await cli(['import', '--email', 'cli-importer@example.com', '--file', path])
    expect(imported.code).toBe(0)
    const zip = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'markdown'])
    expect(zip.code).toBe(0)
    expect(zip.written).toBe('')
    const files = unzipSync(new Uint8Array(zip.bytes))
    expect(Object.keys(files)).toEqual(['One first.md'])
    const text = new TextDecoder().decode(files['One first.md'])
    expect(text).toStartWith('---\ntitle: "One: \\"first\\""\nurl: "https://example.com/one"\n')
    expect(text).toEndWith('---\n\n> a passage\n\nmy note\n')
  })

  test('epub: a book of the unread items, or of a folder named as the person named it, to standard output', async () => {
    const filed = JSON.stringify({
      format: 'readlater',
      version: 1,
      savedItems: [
        { originalUrl: 'https://example.com/filed', title: 'Filed away', folder: { name: 'Deep Reads' } },
        { originalUrl: 'https://example.com/done', title: 'Done', isRead: true, folder: { name: 'Deep Reads' } },
      ],
    })
    expect(
      (await cli(['import', '--email', 'cli-importer@example.com', '--file', file('filed.json', filed)])).code,
    ).toBe(0)
    const titles = async (...flags: string[]) => {
      const result = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'epub', ...flags])
      expect(result.code).toBe(0)
      expect(result.written).toBe('')
      const book = readBook(new Uint8Array(result.bytes))
      return { title: book.title, chapters: book.toc.map(([, title]) => title) }
    }
    const unread = await titles()
    expect(unread.title).toBe('Readlater: Unread, 2026-11-22')
    expect(unread.chapters).toContain('Filed away')
    expect(unread.chapters).not.toContain('Done')
    expect(await titles('--folder', 'deep reads')).toEqual({
      title: 'Readlater: Deep Reads (unread), 2026-11-22',
      chapters: ['Filed away'],
    })
    expect((await titles('--folder', 'DEEP READS', '--state', 'all')).chapters.sort()).toEqual(['Done', 'Filed away'])
    expect((await titles('--folder', 'none')).chapters).not.toContain('Filed away')
    const unknown = await cli(['export', '--email', 'cli-importer@example.com', '--format', 'epub', '--folder', 'Nope'])
    expect(unknown.code).toBe(1)
    expect(unknown.err).toEqual(['error: cli-importer@example.com has no folder named "Nope"'])
    expect(unknown.bytes.length).toBe(0)
    for (const flags of [
      ['--format', 'epub', '--state', 'read'],
      ['--format', 'json', '--folder', 'none'],
      ['--format', 'csv', '--state', 'all'],
    ])
      expect((await cli(['export', '--email', 'cli-importer@example.com', ...flags])).code).toBe(2)
  })
})
