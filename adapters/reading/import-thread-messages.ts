import type { ImportFormat, ParsedEntry } from '../../core/import/types.ts'

/** What an import file is read as: the options of readImportFile, with `now` as epoch milliseconds. */
export interface ImportFileOptions {
  format: ImportFormat | null
  contentType: string | null
  nowMs: number
}

export type ImportThreadRequest =
  /** Reads the whole file and counts its entries (the upload's check). */
  | { id: number; kind: 'count'; bytes: Uint8Array; options: ImportFileOptions }
  /** Opens the file for the job: its entries from the `skip`-th on, asked for with `next`. */
  | { id: number; kind: 'open'; bytes: Uint8Array; options: ImportFileOptions; skip: number }
  /** Up to `max` more checked entries of the opened file. */
  | { id: number; kind: 'next'; max: number }

export type ImportThreadAnswer =
  | { id: number; ok: true; value: unknown }
  /** A file-level problem: its message is the ImportFormatError's, said to the person as is. */
  | { id: number; ok: false; formatError: string }
  /** Anything else: the error's name only (a message may quote the file). */
  | { id: number; ok: false; error: string }

/** The answer to `count`. */
export interface CountedFile {
  format: ImportFormat
  total: number
  /** The file's bytes, handed back (transferred, not copied) for the upload to store. */
  bytes: Uint8Array
}

/** The answer to `next`: `done` when the file has no entry left. */
export interface EntryBatch {
  entries: ParsedEntry[]
  done: boolean
}
