import { parse } from 'csv-parse/sync'
import { ImportFormatError } from './types.ts'

export interface CsvRow {
  /** The line the record starts on, from 1 (a quoted field can span lines). */
  line: number
  cells: string[]
}

export interface CsvTable {
  /** Column names, trimmed and lowercased, so headers match case-insensitively. */
  columns: string[]
  rows: CsvRow[]
  /** Lines in the text, so that the next part of a multi-part export can count on. */
  lineCount: number
}

/** A CSV being read: its header now, its rows as they are asked for (docs/import-export.md#jobs). */
export interface CsvReader {
  /** Column names, trimmed and lowercased, so headers match case-insensitively. */
  columns: string[]
  /** The records after the header, read a window at a time: only the window in hand is kept. */
  rows: Generator<CsvRow, void, undefined>
  /** Lines in the text, so that the next part of a multi-part export can count on. */
  lineCount: number
}

/** Records read per call of the parser: big enough that a call's setup is nothing, small enough to hold. */
const WINDOW_RECORDS = 1000
/** Thrown from csv-parse's record callback to end a window: not an error. */
const WINDOW_FULL = Symbol('window full')

/**
 * Reads CSV (RFC 4180, with the leniencies real exports need: rows of any length, a stray quote inside an
 * unquoted field). Blank rows are skipped. A quoted field that is never closed fails the whole file:
 * everything after it would be one field. `name` says which file in messages ("part_000001.csv line 4").
 * The header is read at once; the rows as the caller iterates, so a 100,000-row file is never held as rows.
 * @see docs/import-export.md#formats
 */
export function openCsv(text: string, name: string | null = null, windowRecords = WINDOW_RECORDS): CsvReader {
  // csv-parse counts CR LF as two lines when record delimiters are mixed, so every line ends in LF first.
  const normalized = text.replace(/\r\n?/g, '\n')
  const records = csvRecords(normalized, name, windowRecords)
  const header = records.next()
  return {
    columns: header.done ? [] : header.value.cells.map((cell) => cell.trim().toLowerCase()),
    rows: records,
    lineCount: countLines(normalized),
  }
}

/** Reads a whole CSV at once (tests, small files): {@link openCsv} with every row collected. */
export function readCsv(text: string, name: string | null = null): CsvTable {
  const reader = openCsv(text, name)
  return { columns: reader.columns, rows: [...reader.rows], lineCount: reader.lineCount }
}

/**
 * The non-blank records of LF-only text, header included. csv-parse has no pull interface that is not a
 * Node stream, so it is called once per window of records on the bytes after the last window: the callback
 * stops it after `windowRecords` records, and the next call starts at the byte after that record's line
 * break (a record boundary, outside any quotes, so the parser's state there is a fresh one).
 *
 * Blank records count towards the window like any other, so one call never parses more than
 * `windowRecords` lines however empty they are; and a window starts by stepping over blank lines (spaces,
 * tabs and commas only) itself, a byte at a time, since csv-parse spends microseconds on each: a file of
 * a million empty lines once held the thread for seconds in a single call (docs/import-export.md#jobs).
 */
function* csvRecords(
  normalized: string,
  name: string | null,
  windowRecords: number,
): Generator<CsvRow, void, undefined> {
  // Bytes, not the string: a window is then a view (subarray), where a string would be copied per call.
  const bytes = new TextEncoder().encode(normalized)
  let offset = 0
  // The line the previous window's last record ended on: lines of a window count from there.
  let lineBase = 0
  while (offset < bytes.length) {
    const skipped = skipBlankLines(bytes, offset)
    lineBase += skipped.lines
    offset = skipped.offset
    if (offset >= bytes.length) return
    const window: CsvRow[] = []
    let records = 0
    let lastRecordLine = 0
    let end = -1
    try {
      // Records are taken as they are read and never collected by csv-parse (on_record returns null), and
      // no per-record info object is asked for. Blank lines are records here (not skipped), so a record
      // starts on the line after the previous one.
      parse(bytes.subarray(offset) as never, {
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: false,
        record_delimiter: '\n',
        on_record: (record: string[], context: { lines: number; bytes: number }) => {
          const line = lineBase + lastRecordLine + 1
          lastRecordLine = context.lines
          if (!record.every((cell) => cell.trim() === '')) window.push({ line, cells: record })
          if (++records >= windowRecords) {
            end = context.bytes
            throw WINDOW_FULL
          }
          return null
        },
      })
    } catch (error) {
      if (error !== WINDOW_FULL) throw malformed(error, normalized, lineBase, lineBase + lastRecordLine, name)
    }
    yield* window
    if (end === -1) return
    offset += end
    lineBase += lastRecordLine
  }
}

const LF = 0x0a
const SPACE = 0x20
const TAB = 0x09
const COMMA = 0x2c

/**
 * From a record boundary, the lines that hold nothing but spaces, tabs and commas (records whose cells are
 * all blank, which the reader skips anyway): how many, and the offset of the first line that is not one
 * (the text's length when none is left).
 */
function skipBlankLines(bytes: Uint8Array, from: number): { offset: number; lines: number } {
  let offset = from
  let lines = 0
  let at = from
  while (at < bytes.length) {
    const byte = bytes[at]!
    if (byte === LF) {
      lines++
      offset = ++at
    } else if (byte === SPACE || byte === TAB || byte === COMMA) at++
    else return { offset, lines }
  }
  // Only blank characters after the last line break: no record is left.
  return { offset: bytes.length, lines }
}

function malformed(error: unknown, normalized: string, lineBase: number, lastLine: number, name: string | null) {
  const at = name === null ? 'line' : `${name} line`
  const code = (error as { code?: unknown }).code
  if (code === 'CSV_QUOTE_NOT_CLOSED') {
    const line = firstNonBlankLineAfter(normalized, lastLine)
    return new ImportFormatError(
      `the CSV is malformed at ${at} ${line}: a quoted field opens there and is never closed`,
    )
  }
  const line = (error as { lines?: unknown }).lines
  const detail = error instanceof Error ? error.message : String(error)
  return new ImportFormatError(
    `the CSV is malformed at ${at} ${typeof line === 'number' ? lineBase + line : '?'}: ${detail}`,
  )
}

/** Where a named column is, or -1. */
export function columnIndex(table: Pick<CsvTable, 'columns'>, name: string): number {
  return table.columns.indexOf(name)
}

/** The first line of a CSV text, split on commas with quotes removed: enough to recognise a header. */
export function headerOf(text: string): string[] {
  const first =
    text
      .slice(0, 4096)
      .trimStart()
      .split(/\r\n|\r|\n/, 1)[0] ?? ''
  return first.split(',').map((cell) => cell.trim().replace(/^"|"$/g, '').trim().toLowerCase())
}

function countNewlines(text: string): number {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  return count
}

function countLines(text: string): number {
  if (text === '') return 0
  return countNewlines(text) + (text.endsWith('\n') ? 0 : 1)
}

function firstNonBlankLineAfter(text: string, line: number): number {
  const lines = text.split('\n')
  for (let index = line; index < lines.length; index++) {
    if (lines[index]!.trim() !== '') return index + 1
  }
  return line + 1
}
