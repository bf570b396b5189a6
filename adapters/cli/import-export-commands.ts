import { ImportFormatError, RateLimitExceededError } from '../../core/errors.ts'
import type { Principal } from '../../core/types.ts'
import { folderIdByName } from '../app/epub.ts'
import { exportOf, exportRequestOf, type ExportRequest } from '../app/export.ts'
import { startImportWorker } from '../jobs/import-worker.ts'
import { importFormatOf, importOf, startImport, type ImportDto } from '../app/imports.ts'
import type { ImportRecord } from '../storage/imports.ts'
import { findAccountByEmail } from '../app/accounts.ts'
import { parseFlags, UsageError } from './flags.ts'
import { noAccount } from './user-commands.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'

/** The CLI acts as the person with every scope an import needs; it never makes a credential. */
const cliPrincipal = (userId: string): Principal => ({
  userId,
  credentialId: 'cli',
  kind: 'api-key',
  scopes: ['saved-items:capture', 'folders:write', 'saved-items:read', 'folders:read'],
  connectClient: null,
})

/**
 * `import --email E --file F [--format X]`: imports a file into the person's library, as POST /v1/imports
 * does, and runs the job here with a progress bar on a terminal (docs/import-export.md#cli). If a server
 * on the same database claims the job first, this follows its progress instead.
 */
export async function importFile(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email', 'file'], optional: ['format'] })
  let format
  try {
    format = importFormatOf(flags.format)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  let bytes: Uint8Array
  try {
    bytes = await deps.readFile(flags.file!)
  } catch (error) {
    io.err(`error: cannot read ${flags.file}: ${(error as Error).message}`)
    return 1
  }
  const appDeps = { db, config: deps.config, clock: deps.clock, random: deps.random, log: () => {} }
  const principal = cliPrincipal(user.id)
  let started: ImportDto
  try {
    started = await startImport(appDeps, principal, { bytes, format, contentType: null })
  } catch (error) {
    // A file that cannot be read, or the person's imports already at the most queued at once.
    if (error instanceof ImportFormatError || error instanceof RateLimitExceededError) {
      io.err(`error: ${error.message}`)
      return 1
    }
    throw error
  }
  const bar = progressBar(io)
  bar(started)
  const worker = startImportWorker(appDeps, undefined, false)
  await worker.drain(started.id, (record: ImportRecord) => bar(record))
  // Claimed by a server meanwhile: follow it there.
  let last = await importOf(appDeps, principal, started.id)
  while (last && last.status !== 'done' && last.status !== 'failed') {
    await new Promise((resolve) => setTimeout(resolve, 250))
    last = await importOf(appDeps, principal, started.id)
    if (last) bar(last)
  }
  io.progress?.(null)
  if (!last || last.status === 'failed') {
    io.err(`error: the import failed${last ? `: ${last.errors.at(-1)?.message ?? ''}` : ''}`)
    return 1
  }
  io.out(
    `Imported ${last.total} entries (${last.format}): ${last.created} created, ${last.updated} updated, ${last.skipped} skipped${
      last.folderNames.length > 0 ? `; folders: ${last.folderNames.join(', ')}` : ''
    }${last.droppedTags.length > 0 ? `; tags dropped: ${last.droppedTags.join(', ')}` : ''}.`,
  )
  for (const error of last.errors) io.err(`line ${error.line}: ${error.message}`)
  return 0
}

/** A one-line bar on a terminal (redrawn in place), nothing elsewhere: logs and pipes get the summary only. */
function progressBar(io: CliIo): (state: { processed: number; total: number }) => void {
  const width = 30
  return ({ processed, total }) => {
    if (!io.progress) return
    const share = total === 0 ? 1 : processed / total
    const filled = Math.round(share * width)
    io.progress(
      `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(share * 100)
        .toString()
        .padStart(3)}% ${processed.toLocaleString('en')}/${total.toLocaleString('en')} entries`,
    )
  }
}

/**
 * `export --email E --format json|netscape|csv|markdown|epub [--folder NAME|none] [--state unread|all]`: the
 * person's whole library (for `markdown`, the zip of their highlights; for `epub`, a book of the articles
 * of a folder, named as the person named it, or of every folder, unread by default) to standard output,
 * streamed as GET /v1/export streams it (docs/import-export.md#cli).
 */
export async function exportLibraryCommand(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'], optional: ['format', 'folder', 'state'] })
  let request: ExportRequest
  try {
    // The folder is named here; it is checked against the person's folders below.
    request = exportRequestOf({
      format: flags.format,
      folder: flags.folder === undefined ? undefined : 'none',
      state: flags.state,
    })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (!io.write) throw new UsageError('export needs a standard output to write to')
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  const appDeps = { db, config: deps.config, clock: deps.clock, random: deps.random, log: () => {} }
  const principal = cliPrincipal(user.id)
  if (request.format === 'epub' && flags.folder !== undefined && flags.folder !== 'none') {
    const folderId = await folderIdByName(appDeps, principal, flags.folder)
    if (folderId === null) {
      io.err(`error: ${flags.email} has no folder named ${JSON.stringify(flags.folder)}`)
      return 1
    }
    request = { format: 'epub', selection: { ...request.selection, folder: folderId } }
  }
  const { chunks } = await exportOf(appDeps, principal, request)
  for await (const chunk of chunks) await io.write(chunk)
  return 0
}
