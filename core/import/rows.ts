import { normalizeFolderName } from '../folders/folder-name.ts'
import { uuidv7 } from '../ids.ts'
import type { RandomSource } from '../types.ts'
import { guessItemType } from '../url/guess-type.ts'
import { normalizeUrl } from '../url/normalize-url.ts'
import type { ImportHighlight } from './highlights.ts'
import { IMPORT_MAX_ERRORS, type ImportEntry, type ImportEntryError, type ParsedEntry } from './types.ts'

/** Dropped tag names kept on an import (the first ones); a file with thousands of free tags names enough. */
export const IMPORT_MAX_DROPPED_TAGS = 200

/** One entry as the item row it writes (docs/import-export.md#entries). */
export interface ImportItemRow {
  id: string
  url: string
  normalizedUrl: string
  host: string
  type: string
  title: string | null
  tags: string[]
  createdAt: string
  lastSavedAt: string
  isRead: boolean
  folderKey: string | null
  /** The entry's line, for the errors its highlights may still give when they are placed. */
  line: number
  /** Its highlights, each with the id it gets if it is inserted and its creation time settled. */
  highlights: (ImportHighlight & { id: string; createdAt: string; updatedAt: string })[]
  /** A page to read the article from (docs/import-export.md#omnivore-highlights), or null. */
  page: string | null
}

/** A batch of entries as rows, the folders they name, and what the batch adds to the import's report. */
export interface ImportBatchRows {
  rows: ImportItemRow[]
  folders: { id: string; name: string; key: string }[]
  errors: ImportEntryError[]
  /** Problems with highlights of entries that are imported: listed with the errors, not counted as skipped. */
  notes: ImportEntryError[]
  droppedTags: string[]
}

/**
 * The rows of a batch of parsed entries: each valid entry becomes an item row saved at its own time (the
 * import's time when the file gives none; lastSavedAt never before createdAt), each error is kept as is.
 * The URL was checked by the parser; an entry that still fails here (it should not) is an error, not a crash.
 */
export function rowsOfBatch(
  entries: readonly ParsedEntry[],
  context: { importedAt: string; nowMs: number; random: RandomSource },
): ImportBatchRows {
  const rows: ImportItemRow[] = []
  const errors: ImportEntryError[] = []
  const notes: ImportEntryError[] = []
  const folders = new Map<string, { id: string; name: string; key: string }>()
  const dropped = new Set<string>()
  for (const parsed of entries) {
    if (!parsed.ok) {
      errors.push(parsed.error)
      continue
    }
    const entry = parsed.entry
    for (const tag of entry.droppedTags) dropped.add(tag)
    try {
      const row = rowOf(entry, context)
      if (row.folderKey !== null && !folders.has(row.folderKey)) {
        folders.set(row.folderKey, {
          id: uuidv7(context.nowMs, context.random),
          name: normalizeFolderName(entry.folder!).name,
          key: row.folderKey,
        })
      }
      rows.push(row)
      if (entry.highlightProblem !== null) notes.push({ line: entry.line, message: entry.highlightProblem })
    } catch (error) {
      errors.push({ line: entry.line, message: error instanceof Error ? error.message : 'cannot be imported' })
    }
  }
  return { rows, folders: [...folders.values()], errors, notes, droppedTags: [...dropped] }
}

function rowOf(entry: ImportEntry, context: { importedAt: string; nowMs: number; random: RandomSource }) {
  const url = normalizeUrl(entry.url)
  const createdAt = entry.savedAt ?? context.importedAt
  const last = entry.lastSavedAt ?? createdAt
  let folderKey: string | null = null
  if (entry.folder !== null) {
    try {
      folderKey = normalizeFolderName(entry.folder).key
    } catch {
      // A name the folder rules refuse is no folder, not a lost entry (docs/import-export.md#entry-rules).
      folderKey = null
    }
  }
  // Ascending in file order: highlights with the same time (Omnivore's have none) keep the file's order,
  // which their id decides among equals (docs/highlights.md#endpoints).
  const ids = entry.highlights.map(() => uuidv7(context.nowMs, context.random)).sort()
  return {
    id: uuidv7(context.nowMs, context.random),
    url: url.originalUrl,
    normalizedUrl: url.normalizedUrl,
    host: url.host,
    type: guessItemType(url.normalizedUrl),
    title: entry.title,
    tags: [...new Set(entry.tags)],
    createdAt,
    lastSavedAt: last < createdAt ? createdAt : last,
    isRead: entry.isRead,
    folderKey,
    line: entry.line,
    // A highlight the file gives no time keeps its item's saved time (docs/import-export.md#highlights).
    highlights: entry.highlights.map((highlight, i) => {
      const made = highlight.createdAt ?? createdAt
      return {
        ...highlight,
        id: ids[i]!,
        createdAt: made,
        updatedAt: highlight.updatedAt !== null && highlight.updatedAt > made ? highlight.updatedAt : made,
      }
    }),
    page: entry.page,
  }
}

/** Appends to a bounded list the items not yet in it: the report keeps the first ones. */
export function appendBounded<T>(list: readonly T[], more: readonly T[], max: number, key: (item: T) => string): T[] {
  const out = [...list]
  const seen = new Set(out.map(key))
  for (const item of more) {
    if (out.length >= max) break
    const k = key(item)
    if (seen.has(k)) continue
    seen.add(k)
    out.push(item)
  }
  return out
}

/** The first errors of an import, in file order (a batch's own are sorted by line: entry errors and highlight notes). */
export const appendErrors = (list: readonly ImportEntryError[], more: readonly ImportEntryError[]) =>
  list.length >= IMPORT_MAX_ERRORS
    ? [...list]
    : [...list, ...[...more].sort((a, b) => a.line - b.line)].slice(0, IMPORT_MAX_ERRORS)
