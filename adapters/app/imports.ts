import { ImportFormatError } from '../../core/errors.ts'
import { uuidv7 } from '../../core/ids.ts'
import { bytesToKeep } from '../../core/import/decode-text.ts'
import { type ImportFile, readImportFile } from '../../core/import/parse-import.ts'
import { IMPORT_FORMATS, IMPORT_MAX_BYTES, type ImportFormat } from '../../core/import/types.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import { findImport, insertImport, listImports, type ImportRecord } from '../storage/imports.ts'
import type { AppDeps } from './deps.ts'
import { collectGarbage, ENTRIES_PER_COLLECTION } from './memory.ts'

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

/** How long counting an upload's entries holds the serving thread before it lets waiting requests in. */
const COUNT_SLICE_MS = 10

/**
 * Accepts a file for import: the whole file is read here, its entries counted but not kept (so a file that
 * is no supported format, a broken container or malformed CSV is refused with nothing written, and a
 * 100,000-entry file costs no more memory than a window of it), then kept with a queued job that the
 * import workers read again, a batch at a time (docs/import-export.md#jobs).
 */
export async function startImport(
  deps: AppDeps,
  principal: Principal,
  input: { bytes: Uint8Array; format: ImportFormat | null; contentType: string | null },
): Promise<ImportDto> {
  if (input.bytes.byteLength > IMPORT_MAX_BYTES)
    throw new ImportFormatError(`the file is over the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB limit of an import`)
  const now = deps.clock.now()
  const file = readImportFile(input.bytes, { format: input.format, contentType: input.contentType, now })
  const total = await countItems(file)
  return toImportDto(
    await insertImport(
      deps.db,
      {
        id: uuidv7(now.getTime(), deps.random),
        userId: principal.userId,
        format: file.format,
        total,
        createdAt: toTimestamp(now),
      },
      bytesToKeep(input.bytes, input.contentType),
    ),
  )
}

/** The file's entries, counted in slices of at most COUNT_SLICE_MS with a turn of the event loop between. */
async function countItems(file: ImportFile): Promise<number> {
  let total = 0
  let sliceStart = performance.now()
  for (const _ of file.items()) {
    total++
    if ((total & 1023) === 0 && performance.now() - sliceStart > COUNT_SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      sliceStart = performance.now()
    }
    if (total % ENTRIES_PER_COLLECTION === 0) collectGarbage()
  }
  return total
}

export async function importOf(deps: AppDeps, principal: Principal, id: string): Promise<ImportDto | null> {
  const record = await findImport(deps.db, principal.userId, id)
  return record ? toImportDto(record) : null
}

export async function importsOf(deps: AppDeps, principal: Principal): Promise<ImportDto[]> {
  return (await listImports(deps.db, principal.userId)).map(toImportDto)
}
