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

/**
 * Reads CSV (RFC 4180, with the leniencies real exports need: rows of any length, a stray quote inside an
 * unquoted field). Blank rows are skipped. A quoted field that is never closed fails the whole file:
 * everything after it would be one field. `name` says which file in messages ("part_000001.csv line 4").
 * @see docs/import-export.md#formats
 */
export function readCsv(text: string, name: string | null = null): CsvTable {
  // csv-parse counts CR LF as two lines when record delimiters are mixed, so every line ends in LF first.
  const normalized = text.replace(/\r\n?/g, '\n')
  let lastRecordLine = 0
  const rows: CsvRow[] = []
  let columns: string[] | null = null
  try {
    // Records are taken as they are read and never collected by csv-parse (on_record returns null), and
    // no per-record info object is asked for: a 100,000-row file then costs its rows, not three times them.
    // Blank lines are records here (not skipped), so a record starts on the line after the previous one.
    parse(normalized, {
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      record_delimiter: '\n',
      on_record: (record: string[], context: { lines: number }) => {
        const line = lastRecordLine + 1
        lastRecordLine = context.lines
        if (record.every((cell) => cell.trim() === '')) return null
        if (columns === null) columns = record.map((cell) => cell.trim().toLowerCase())
        else rows.push({ line, cells: record })
        return null
      },
    })
  } catch (error) {
    const at = name === null ? 'line' : `${name} line`
    const code = (error as { code?: unknown }).code
    if (code === 'CSV_QUOTE_NOT_CLOSED') {
      const line = firstNonBlankLineAfter(normalized, lastRecordLine)
      throw new ImportFormatError(
        `the CSV is malformed at ${at} ${line}: a quoted field opens there and is never closed`,
      )
    }
    const line = (error as { lines?: unknown }).lines
    const detail = error instanceof Error ? error.message : String(error)
    throw new ImportFormatError(`the CSV is malformed at ${at} ${typeof line === 'number' ? line : '?'}: ${detail}`)
  }

  return { columns: columns ?? [], rows, lineCount: countLines(normalized) }
}

/** Where a named column is, or -1. */
export function columnIndex(table: CsvTable, name: string): number {
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
