import NativeDatabase from 'libsql'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseFlags, UsageError } from './flags.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'

const JOURNAL = fileURLToPath(new URL('../storage/migrations/meta/_journal.json', import.meta.url))

/** The embedded database file of DATABASE_URL, or a UsageError for a remote database. */
function databaseFile(deps: CliDeps, command: string): string {
  const url = deps.config.databaseUrl
  if (!url.startsWith('file:') || url === 'file::memory:') {
    throw new UsageError(
      `${command} works on the embedded file database only; for a remote database use its own backups (for Turso: turso db shell <db> .dump)`,
    )
  }
  return resolve(url.slice('file:'.length))
}

/**
 * `backup --to PATH`: a consistent copy of the embedded database, safe while the server runs: `VACUUM INTO`
 * reads one snapshot in a read transaction (WAL lets writers go on) and writes a compact, checkpointed file.
 * @see docs/operations.md#backup-and-restore
 */
export async function backup(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['to'] })
  databaseFile(deps, 'backup')
  const target = resolve(flags.to!)
  if (existsSync(target)) throw new UsageError(`${target} already exists; choose a new file name`)
  const db = await deps.openDb()
  try {
    await db.$client.execute({ sql: 'VACUUM INTO ?', args: [target] })
  } catch (error) {
    io.err(`error: cannot write the backup to ${target}: ${(error as Error).message.split('\n')[0]}`)
    return 1
  }
  io.out(`Backed up to ${target}.`)
  return 0
}

/**
 * `restore --from PATH`: checks the backup (SQLite integrity check, a Readlater schema no newer than this
 * build), keeps the current file as `<name>.before-restore` and puts a copy of the backup in its place.
 * Run it with the server stopped. The server brings an older schema up to date when it starts.
 * @see docs/operations.md#backup-and-restore
 */
export async function restore(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['from'] })
  const target = databaseFile(deps, 'restore')
  const source = resolve(flags.from!)
  if (!existsSync(source)) throw new UsageError(`${source} does not exist`)
  if (source === target) throw new UsageError('the backup is the database itself')
  const problem = checkBackup(source)
  if (problem) {
    io.err(`error: ${source} cannot be restored: ${problem}`)
    return 1
  }
  const kept = `${target}.before-restore`
  if (existsSync(target) && existsSync(kept)) {
    io.err(`error: ${kept} exists from an earlier restore; move it away first`)
    return 1
  }
  if (existsSync(target)) {
    // The WAL and its index belong with the file they were written for: they move along, renamed so
    // SQLite finds them next to the kept copy, and never meet the restored file.
    renameSync(target, kept)
    for (const suffix of ['-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, kept + suffix)
  }
  mkdirSync(dirname(target), { recursive: true })
  copyFileSync(source, target)
  io.out(`Restored ${source} into ${target}${existsSync(kept) ? `; the previous database is kept as ${kept}` : ''}.`)
  return 0
}

/** Why `file` cannot be restored, or null when it can. */
function checkBackup(file: string): string | null {
  let native: InstanceType<typeof NativeDatabase>
  try {
    native = new NativeDatabase(file, { readonly: true, fileMustExist: true })
  } catch (error) {
    return `it is not a database (${(error as Error).message.split('\n')[0]})`
  }
  try {
    const integrity = (native.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map(
      (row) => row.integrity_check,
    )
    if (integrity.join() !== 'ok') return `the integrity check failed: ${integrity.slice(0, 3).join('; ')}`
    const hasMigrations = native
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      .get()
    if (!hasMigrations) return 'it is not a Readlater database (no migration history)'
    const applied = (
      native.prepare('SELECT created_at FROM __drizzle_migrations ORDER BY created_at').all() as {
        created_at: number | bigint
      }[]
    ).map((row) => Number(row.created_at))
    const ours = (JSON.parse(readFileSync(JOURNAL, 'utf8')) as { entries: { when: number }[] }).entries.map(
      (entry) => entry.when,
    )
    if (applied.length > ours.length)
      return `its schema is newer than this build (${applied.length} migrations, this build knows ${ours.length}); upgrade first`
    if (applied.some((when, i) => when !== ours[i])) return 'its migration history is not one of this build'
    return null
  } catch (error) {
    return `it cannot be read (${(error as Error).message.split('\n')[0]})`
  } finally {
    native.close()
  }
}
