import { ImportFormatError, RateLimitExceededError } from '../../core/errors.ts'
import { uuidv7 } from '../../core/ids.ts'
import { bytesToKeep } from '../../core/import/decode-text.ts'
import { IMPORT_FORMATS, IMPORT_MAX_BYTES, IMPORT_MAX_UNFINISHED, type ImportFormat } from '../../core/import/types.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Principal } from '../../core/types.ts'
import {
  countImportFile,
  DEFAULT_IMPORT_READ_BUDGET,
  ImportReadBudgetError,
  type ImportReadBudget,
} from '../reading/import-threads.ts'
import { countUnfinishedImports, findImport, insertImport, listImports, type ImportRecord } from '../storage/imports.ts'
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

/** Seconds a person over IMPORT_MAX_UNFINISHED is asked to wait (Retry-After) before trying again. */
export const IMPORT_RETRY_AFTER_S = 10

/**
 * Accepts a file for import (docs/import-export.md#imports): refused at once when the person already has
 * IMPORT_MAX_UNFINISHED imports queued or running (429); otherwise the whole file is read and its entries
 * counted on an import thread, under the reading budgets (docs/import-export.md#reading-budgets), so a
 * file that is no supported format, a broken container, malformed CSV or one past a budget is refused
 * with nothing written, while the serving thread goes on serving. Then the file is kept with a queued
 * job that the import workers read again, a batch at a time (docs/import-export.md#jobs).
 */
export async function startImport(
  deps: AppDeps,
  principal: Principal,
  input: { bytes: Uint8Array; format: ImportFormat | null; contentType: string | null },
  budget: ImportReadBudget = DEFAULT_IMPORT_READ_BUDGET,
): Promise<ImportDto> {
  if (input.bytes.byteLength > IMPORT_MAX_BYTES)
    throw new ImportFormatError(`the file is over the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB limit of an import`)
  await refuseOverUnfinished(deps, principal)
  const now = deps.clock.now()
  let counted: Awaited<ReturnType<typeof countImportFile>>
  try {
    counted = await countImportFile(
      input.bytes,
      { format: input.format, contentType: input.contentType, nowMs: now.getTime() },
      budget,
    )
  } catch (error) {
    // A file past a budget is refused like any file that cannot be read: it is the file's doing.
    if (error instanceof ImportReadBudgetError) throw new ImportFormatError(`${error.message}; nothing was imported`)
    throw error
  }
  // Checked again after the count: uploads racing past the first check do not pass the cap together.
  await refuseOverUnfinished(deps, principal)
  return toImportDto(
    await insertImport(
      deps.db,
      {
        id: uuidv7(now.getTime(), deps.random),
        userId: principal.userId,
        format: counted.format,
        total: counted.total,
        createdAt: toTimestamp(now),
      },
      // The bytes as the thread handed them back: the upload's own were given to it, not copied.
      bytesToKeep(counted.bytes, input.contentType),
    ),
  )
}

async function refuseOverUnfinished(deps: AppDeps, principal: Principal): Promise<void> {
  const unfinished = await countUnfinishedImports(deps.db, principal.userId)
  if (unfinished >= IMPORT_MAX_UNFINISHED) {
    throw new RateLimitExceededError(
      `${unfinished} of your imports are queued or running, the most at once; retry when one has ended (in about ${IMPORT_RETRY_AFTER_S} s)`,
    )
  }
}

export async function importOf(deps: AppDeps, principal: Principal, id: string): Promise<ImportDto | null> {
  const record = await findImport(deps.db, principal.userId, id)
  return record ? toImportDto(record) : null
}

export async function importsOf(deps: AppDeps, principal: Principal): Promise<ImportDto[]> {
  return (await listImports(deps.db, principal.userId)).map(toImportDto)
}
