import { toTimestamp } from '../time.ts'

/** A date as a file gives it: unix time as a number or digits, an ISO 8601 or RFC 2822 string, or nothing. */
export type RawDate = string | number | null | undefined

/** The earliest saved date an import takes; anything earlier is a placeholder (0, -1) or a misread unit. */
export const IMPORT_EARLIEST_DATE = Date.UTC(1990, 0, 1)

export type DateResult = { ok: true; timestamp: string | null } | { ok: false; problem: string }

/**
 * Reads a saved date by the rules of docs/import-export.md#entry-rules: unix seconds (milliseconds above
 * 1e12, microseconds above 1e15), ISO 8601 or RFC 2822; missing is null; before 1990 or unreadable is a
 * problem; after `now` is clamped to `now`, since a clock that ran ahead must not sort an item above
 * everything saved from now on.
 */
export function readImportDate(raw: RawDate, now: Date): DateResult {
  if (raw === null || raw === undefined) return { ok: true, timestamp: null }
  const text = typeof raw === 'number' ? String(raw) : raw.trim()
  if (text === '') return { ok: true, timestamp: null }
  const ms = typeof raw === 'number' ? fromUnix(raw) : parseDateText(text)
  if (ms === null || !Number.isFinite(ms)) {
    return { ok: false, problem: `"${shorten(text)}" cannot be read as a date` }
  }
  if (ms < IMPORT_EARLIEST_DATE) {
    const when = ms > -8.64e15 ? ` (${new Date(ms).toISOString()})` : ''
    return { ok: false, problem: `"${shorten(text)}"${when} is before 1990` }
  }
  return { ok: true, timestamp: toTimestamp(ms > now.getTime() ? now : new Date(ms)) }
}

function fromUnix(value: number): number | null {
  if (!Number.isFinite(value)) return null
  const magnitude = Math.abs(value)
  // The unit is guessed from the size: seconds reach 1e12 only in the year 33658, milliseconds reach
  // 1e15 only in 33658 too, so anything larger is microseconds (Firefox's internal unit).
  if (magnitude > 1e15) return Math.trunc(value / 1000)
  if (magnitude > 1e12) return Math.trunc(value)
  return Math.trunc(value * 1000)
}

const UNIX = /^[+-]?\d+(?:\.\d+)?$/
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/
const RFC_2822 =
  /^(?:[A-Za-z]{3},?\s+)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*([+-]\d{4}|[A-Za-z]{1,3})?$/
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
/** RFC 2822 section 4.3 zone names; military single letters other than Z are not trusted (4.3 itself says so). */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  edt: -4 * 60,
  est: -5 * 60,
  cdt: -5 * 60,
  cst: -6 * 60,
  mdt: -6 * 60,
  mst: -7 * 60,
  pdt: -7 * 60,
  pst: -8 * 60,
}

/**
 * Parsed by hand rather than by `Date.parse`, whose handling of anything but the exact ISO format differs
 * between V8 (Node, Deno) and JavaScriptCore (Bun).
 */
function parseDateText(text: string): number | null {
  if (UNIX.test(text)) return fromUnix(Number(text))
  const iso = ISO.exec(text)
  if (iso !== null) {
    const [, year, month, day, hour, minute, second, fraction, zone] = iso
    const offset = zone === undefined ? 0 : isoOffset(zone)
    if (offset === null) return null
    const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'))
    return utc(+year!, +month!, +day!, +(hour ?? 0), +(minute ?? 0), +(second ?? 0), ms, offset)
  }
  const rfc = RFC_2822.exec(text)
  if (rfc !== null) {
    const [, day, monthName, yearText, hour, minute, second, zone] = rfc
    const month = MONTHS.indexOf(monthName!.toLowerCase()) + 1
    if (month === 0) return null
    let year = +yearText!
    // RFC 2822 section 4.3: a two-digit year is 19xx from 50 up, 20xx below.
    if (yearText!.length === 2) year += year >= 50 ? 1900 : 2000
    const offset = zone === undefined ? 0 : rfcOffset(zone)
    if (offset === null) return null
    return utc(year, month, +day!, +hour!, +minute!, +(second ?? 0), 0, offset)
  }
  return null
}

/** Minutes east of UTC for `Z`, `+hh`, `+hhmm` or `+hh:mm`. */
function isoOffset(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0
  if (hours > 23 || minutes > 59) return null
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes)
}

function rfcOffset(zone: string): number | null {
  if (zone[0] === '+' || zone[0] === '-') return isoOffset(zone)
  return ZONES[zone.toLowerCase()] ?? null
}

/**
 * Epoch milliseconds for a wall-clock time at `offset` minutes east of UTC; null for a day or time that
 * does not exist.
 */
function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offset: number,
): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  if (day > daysInMonth(year, month)) return null
  const date = new Date(0)
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime() - offset * 60_000
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

function shorten(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}
