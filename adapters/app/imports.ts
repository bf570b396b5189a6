import { ImportFormatError } from '../../core/errors.ts'
import { uuidv7 } from '../../core/ids.ts'
import { parseImportFile } from '../../core/import/parse-import.ts'
import { IMPORT_FORMATS, IMPORT_MAX_BYTES, type ImportFormat, type ParsedEntry } from '../../core/import/types.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import { findImport, insertImport, listImports, type ImportRecord } from '../storage/imports.ts'
import type { AppDeps } from './deps.ts'

/** An import as the API shows it (docs/import-export.md#imports): the stored record less its owner and failure. */
export type ImportDto = Omit<ImportRecord, 'userId' | 'failure'>

export function toImportDto(record: ImportRecord): ImportDto {
  const { userId: _owner, failure: _failure, ...dto } = record
  return dto
}

/** The `format` a caller named, or null for "detect it"; anything else is refused before the file is read. */
export function importFormatOf(value: string | null | undefined): ImportFormat | null {
  if (value === undefined || value === null || value === '') return null
  if ((IMPORT_FORMATS as readonly string[]).includes(value)) return value as ImportFormat
  throw new ImportFormatError(`format: "${value.slice(0, 40)}" is not one of ${IMPORT_FORMATS.join(', ')}`)
}

/**
 * Accepts a file for import: the whole file is read here (so a file that is no supported format, a broken
 * container or malformed CSV is refused with nothing written), then kept with a queued job that the
 * import workers run in batches (docs/import-export.md#jobs).
 */
export async function startImport(
  deps: AppDeps,
  principal: Principal,
  input: { bytes: Uint8Array; format: ImportFormat | null; contentType: string | null },
): Promise<ImportDto> {
  if (input.bytes.byteLength > IMPORT_MAX_BYTES)
    throw new ImportFormatError(`the file is over the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB limit of an import`)
  const now = deps.clock.now()
  const parsed = parseImportFile(input.bytes, { format: input.format, contentType: input.contentType, now })
  const record = await insertImport(
    deps.db,
    {
      id: uuidv7(now.getTime(), deps.random),
      userId: principal.userId,
      format: parsed.format,
      total: parsed.entries.length,
      createdAt: toTimestamp(now),
    },
    input.bytes,
  )
  keepParsed(record.id, parsed.entries)
  return toImportDto(record)
}

/**
 * Files read by this process's uploads, kept until its import worker takes the job (docs/import-export.md#jobs):
 * the worker need not read the file a second time. Bounded and short-lived: a job another process takes,
 * or one resumed after a restart, reads its file from the database again.
 */
const parsedFiles = new Map<string, { entries: ParsedEntry[]; until: number }>()
const PARSED_KEPT = 4
const PARSED_KEPT_MS = 60_000

function keepParsed(id: string, entries: ParsedEntry[]): void {
  const now = Date.now()
  for (const [key, kept] of parsedFiles) if (kept.until < now) parsedFiles.delete(key)
  while (parsedFiles.size >= PARSED_KEPT) parsedFiles.delete(parsedFiles.keys().next().value!)
  parsedFiles.set(id, { entries, until: now + PARSED_KEPT_MS })
}

/** The entries an upload in this process already read for this import, once; null when there are none. */
export function takeParsed(id: string): ParsedEntry[] | null {
  const kept = parsedFiles.get(id)
  parsedFiles.delete(id)
  return kept && kept.until >= Date.now() ? kept.entries : null
}

export async function importOf(deps: AppDeps, principal: Principal, id: string): Promise<ImportDto | null> {
  const record = await findImport(deps.db, principal.userId, id)
  return record ? toImportDto(record) : null
}

export async function importsOf(deps: AppDeps, principal: Principal): Promise<ImportDto[]> {
  return (await listImports(deps.db, principal.userId)).map(toImportDto)
}
