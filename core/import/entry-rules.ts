import { MAX_FOLDER_NAME_LENGTH, normalizeFolderName } from '../folders/folder-name.ts'
import { normalizeUrl } from '../url/normalize-url.ts'
import { readImportDate, type RawDate } from './dates.ts'
import { checkImportHighlights } from './highlights.ts'
import { sortTags } from './tags.ts'
import type { ParsedEntry } from './types.ts'

/** Longest title an import keeps, in code points; longer ones are cut. @see docs/import-export.md#entry-rules */
export const IMPORT_MAX_TITLE_LENGTH = 1000
/** How much of a bad value an error message quotes. */
const QUOTED_LENGTH = 100
/** Joins the names of nested folders into one folder name. */
export const FOLDER_SEPARATOR = ' / '

/** An entry as a format parser read it, before the rules shared by every format. */
export interface RawEntry {
  line: number
  url: string | null | undefined
  title?: string | null
  /** The saved date and the name of the field it came from (named in error messages). */
  savedAt?: { value: RawDate; field: string }
  lastSavedAt?: { value: RawDate; field: string }
  isRead: boolean
  /** A folder path already joined and cut by {@link appendFolderPart}, or its parts. */
  folder?: string | readonly string[] | null
  tags?: readonly string[]
  /** Where the entry is, when the line alone does not say it (a part of a zip): prefixes its errors. */
  where?: string
  /** Its highlights as the file writes them (our JSON export's shape), checked with the entry. */
  highlights?: unknown
  /**
   * What the entry keeps in other files of the import (Omnivore's `highlights/<slug>.md` and
   * `content/<slug>.html`), read only when the entry is checked: counting a file's entries never reads them.
   */
  attachments?: () => EntryAttachments
}

/** An entry's highlights and page read from the other files of its import, and what could not be read. */
export interface EntryAttachments {
  highlights: unknown
  page: string | null
  problems: string[]
}

/** An entry a parser found no way to read (not a JSON object, a read state that is neither): listed as is. */
export type RefusedEntry = Extract<ParsedEntry, { ok: false }>

/**
 * What a format parser yields, one per entry in file order: the entry as read, or one already refused. The
 * rules ({@link checkItem}) run later, so counting a file's entries costs no URL parsing.
 */
export type RawItem = RawEntry | RefusedEntry

/** An item a parser yielded, checked: a refused one stays as it is. */
export function checkItem(item: RawItem, now: Date): ParsedEntry {
  return 'ok' in item ? item : checkEntry(item, now)
}

/** Every item of a parser, checked: for tests and small files; imports take them a batch at a time. */
export function checkAll(items: Iterable<RawItem>, now: Date): ParsedEntry[] {
  return Array.from(items, (item) => checkItem(item, now))
}

/** An entry refused with a message (its `where` prefixed, as checkEntry does). */
export function refused(line: number, message: string, where?: string): RefusedEntry {
  return { ok: false, error: { line, message: where ? `${where}: ${message}` : message } }
}

/**
 * Applies docs/import-export.md#entry-rules, the same for every format: the URL must be http(s), dates
 * are read and clamped, tags are sorted into tag values and dropped names, the title and folder are
 * tidied. A problem with the URL or a date fails the entry (with every problem it has); nothing else does.
 */
export function checkEntry(raw: RawEntry, now: Date): ParsedEntry {
  const problems: string[] = []
  const url = typeof raw.url === 'string' ? raw.url.trim() : ''
  const urlProblem = problemWithUrl(url)
  if (urlProblem !== null) problems.push(urlProblem)
  const savedAt = raw.savedAt === undefined ? null : readDate(raw.savedAt, now, problems)
  const lastSavedAt = raw.lastSavedAt === undefined ? null : readDate(raw.lastSavedAt, now, problems)
  if (problems.length > 0) {
    const message = problems.join('; ')
    return { ok: false, error: { line: raw.line, message: raw.where ? `${raw.where}: ${message}` : message } }
  }
  const folder = typeof raw.folder === 'string' || raw.folder == null ? raw.folder : joinFolderPath(raw.folder)
  const attached = raw.attachments?.()
  const highlights = checkImportHighlights(attached ? attached.highlights : raw.highlights, now, attached?.problems)
  return {
    ok: true,
    entry: {
      line: raw.line,
      url,
      title: cleanTitle(raw.title),
      savedAt,
      lastSavedAt,
      isRead: raw.isRead,
      folder: folder === undefined ? null : checkedFolder(folder),
      ...sortTags(raw.tags ?? []),
      highlights: highlights.highlights,
      highlightProblem:
        highlights.problem === null ? null : raw.where ? `${raw.where}: ${highlights.problem}` : highlights.problem,
      page: attached?.page ?? null,
    },
  }
}

function problemWithUrl(url: string): string | null {
  if (url === '') return 'the entry has no URL'
  try {
    normalizeUrl(url)
    return null
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Cannot save URL: /, '') : String(error)
    // normalizeUrl quotes the whole URL (up to 8 KB); say "it" instead and quote a cut-down copy once.
    const said = reason
      .replaceAll(`"${url}"`, 'it')
      .replace(/"[^"]*"/g, (quoted) => (quoted.length > QUOTED_LENGTH + 2 ? 'it' : quoted))
    return `the URL "${quote(url)}" cannot be saved: ${said}`
  }
}

function readDate(date: { value: RawDate; field: string }, now: Date, problems: string[]): string | null {
  const read = readImportDate(date.value, now)
  if (read.ok) return read.timestamp
  problems.push(`${date.field} ${read.problem}`)
  return null
}

/** A value cut for quoting in a message: its first 100 code points, then `…`. */
export function quote(text: string): string {
  if (text.length <= QUOTED_LENGTH) return text
  const cut = [...text.slice(0, QUOTED_LENGTH * 2)].slice(0, QUOTED_LENGTH).join('')
  return cut.length < text.length ? `${cut}…` : text
}

/**
 * Whitespace runs (line breaks too) become one space and control characters go, since a title is one
 * line; then trimmed, cut to {@link IMPORT_MAX_TITLE_LENGTH} code points, and null when empty.
 */
export function cleanTitle(title: string | null | undefined): string | null {
  if (typeof title !== 'string') return null
  const tidy = title
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .trim()
  if (tidy === '') return null
  return cutCodePoints(tidy, IMPORT_MAX_TITLE_LENGTH)
}

/** One folder name of a path: whitespace runs become one space, trimmed, NFC like normalizeFolderName. */
function cleanFolderPart(part: string): string {
  return part.replace(/\s+/g, ' ').trim().normalize('NFC')
}

/**
 * Adds the next (inner) folder to a path already built by this function, cutting the result to the folder
 * name limit. Built one level at a time so that a bookmark file nested 100,000 deep costs 100,000 short
 * steps rather than joining ever longer paths. An empty part adds nothing.
 */
export function appendFolderPart(path: string | null, part: string): string | null {
  const name = cleanFolderPart(part)
  if (name === '') return path
  if (path === null) return cutFolder(name)
  // A path at the limit cannot grow: skip building a string only to cut it back.
  if (path.length >= MAX_FOLDER_NAME_LENGTH && [...path].length >= MAX_FOLDER_NAME_LENGTH) return path
  return cutFolder(`${path}${FOLDER_SEPARATOR}${name}`)
}

/** The parts of a folder path, outermost first, joined and cut. @see docs/import-export.md#entry-rules */
export function joinFolderPath(parts: readonly string[]): string | null {
  let path: string | null = null
  for (const part of parts) path = appendFolderPart(path, part)
  return path
}

/** Cut to the folder name limit without leaving a trailing space or half a separator. */
function cutFolder(path: string): string {
  if (path.length <= MAX_FOLDER_NAME_LENGTH) return path
  let cut = cutCodePoints(path, MAX_FOLDER_NAME_LENGTH)
  if (cut.endsWith(FOLDER_SEPARATOR.trimEnd())) cut = cut.slice(0, -FOLDER_SEPARATOR.trimEnd().length).trimEnd()
  return cut
}

/** A folder name the folder code would refuse (a control character) is dropped, not an error. */
function checkedFolder(folder: string | null): string | null {
  if (folder === null) return null
  try {
    return normalizeFolderName(folder).name
  } catch {
    return null
  }
}

function cutCodePoints(text: string, limit: number): string {
  // Quick path: a string of at most `limit` UTF-16 units has at most `limit` code points.
  if (text.length <= limit) return text
  const codePoints = [...text]
  return codePoints.length <= limit ? text : codePoints.slice(0, limit).join('').trimEnd()
}
