import type { Tag } from '../types.ts'
import type { ImportHighlight } from './highlights.ts'

/** The formats an import reads (docs/import-export.md#formats). */
export const IMPORT_FORMATS = ['pocket', 'netscape', 'instapaper', 'omnivore', 'wallabag', 'readlater', 'urls'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** The largest file an import takes: 50 MiB. */
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024
/** What a zip's entries may expand to, in total, before the file is refused: 200 MiB. */
export const IMPORT_MAX_EXPANDED_BYTES = 200 * 1024 * 1024
/**
 * The most entries a zip may hold (its central directory says how many before any is read): Omnivore's
 * export holds two files per item and one per 50 items, so this is a library of some 50,000 items.
 */
export const IMPORT_MAX_ZIP_ENTRIES = 100_000
/** Imports a person may have queued or running at once; another upload is refused (429) until one ends. */
export const IMPORT_MAX_UNFINISHED = 3
/**
 * A batch of an import's job ends early, after the entry that reaches either: so placing a batch's
 * highlights holds the serving thread about as long as re-anchoring one article's, and the pages a batch
 * carries (Omnivore's articles, up to 2 MiB each) stay a few MiB (docs/import-export.md#highlights).
 */
export const IMPORT_BATCH_MAX_HIGHLIGHTS = 1_000
export const IMPORT_BATCH_MAX_PAGE_CHARACTERS = 8 * 1024 * 1024

/** Errors kept on an import (the first ones); the rest are only counted in `skipped`. */
export const IMPORT_MAX_ERRORS = 100

/** A file that cannot be imported at all (400 `ImportFormatError`): defined with the other typed errors. */
export { ImportFormatError } from '../errors.ts'

/**
 * One entry of an import file, checked and ready to save: the URL is valid http(s) (not yet normalized:
 * the capture path normalizes it), the saved time is a timestamp no later than the import's `now`, the
 * folder is a path joined with " / " (cut to the folder name limit) or null, the tags are tag values.
 */
export interface ImportEntry {
  /** Where the entry is in the file: its line (CSV, HTML, URL lists) or its number (JSON), from 1. */
  line: number
  url: string
  title: string | null
  /** ISO 8601 timestamp (`toTimestamp`), or null when the file gives none (the import's own time is used). */
  savedAt: string | null
  /** When it was last saved, where the file says (our own export); null means the same as `savedAt`. */
  lastSavedAt: string | null
  isRead: boolean
  folder: string | null
  tags: Tag[]
  /** Tags as written in the file that match no tag value (reported once per import, never an error). */
  droppedTags: string[]
  /** Its highlights, checked (docs/import-export.md#highlights): placed on the item when it is written. */
  highlights: ImportHighlight[]
  /** What was wrong with the highlights left out, listed as an error of the entry's line (the entry is imported). */
  highlightProblem: string | null
  /** A page to read the article from instead of fetching it (Omnivore's `content/<slug>.html`), or null. */
  page: string | null
}

/** An entry that cannot be imported (no URL, not http(s), a date that cannot be read): listed, the rest go on. */
export interface ImportEntryError {
  line: number
  message: string
}

export type ParsedEntry = { ok: true; entry: ImportEntry } | { ok: false; error: ImportEntryError }

/** A file read whole: its format and every entry in file order. */
export interface ParsedImport {
  format: ImportFormat
  entries: ParsedEntry[]
}
