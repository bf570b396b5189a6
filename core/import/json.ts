import { jsonDepth, MAX_JSON_DEPTH } from '../limits/json-depth.ts'
import type { RawDate } from './dates.ts'
import { type RefusedEntry, refused } from './entry-rules.ts'
import { ImportFormatError } from './types.ts'

export type JsonObject = Record<string, unknown>

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * JSON.parse, refusing the file (ImportFormatError) when it is not JSON, or when it nests deeper than
 * MAX_JSON_DEPTH: that is measured first, in one pass that parses nothing, since parsing deep nesting
 * costs time and memory out of all proportion (40 MB of `[` once took seconds and gigabytes; no export
 * nests past 6). @see docs/import-export.md#detection
 */
export function parseJson(text: string, name: string | null = null): unknown {
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new ImportFormatError(
      `${name === null ? 'the JSON' : `the JSON of ${name}`} nests deeper than ${MAX_JSON_DEPTH} levels; no export does`,
    )
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new ImportFormatError(`${name === null ? 'the JSON' : `the JSON of ${name}`} is malformed: ${detail}`)
  }
}

/** A string field as written; a missing or non-string one is null (so a number is not taken for a URL). */
export function textOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** A date field: a string or a number as written, null when missing; anything else as its JSON, which no date reads. */
export function dateOf(value: unknown): RawDate {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'number') return value
  return JSON.stringify(value)
}

/** The error for an array item that is not an object. */
export function notAnObject(line: number, where?: string): RefusedEntry {
  return refused(line, 'the entry is not a JSON object', where)
}
