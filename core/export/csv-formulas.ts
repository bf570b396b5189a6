/**
 * Spreadsheet formula injection in our CSV export, and its exact undoing on import
 * (docs/import-export.md#export).
 *
 * A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` as a formula (and a leading tab or CR can
 * hide such a start), so a page's title such as `=HYPERLINK("http://evil.example","x")` would become a live
 * link, or worse, in the sheet of whoever opens the export. OWASP's defence against CSV injection: prefix
 * such a cell with `'`, which makes the cell text.
 *
 * The prefix is undone when our own CSV is imported, and the round trip must be exact, so the rule is a
 * bijection: a value that starts with any run of `'` followed by a trigger gets one more `'` on export
 * (`=x` → `'=x`, `'=x` → `''=x`), and a cell that starts with one or more `'` followed by a trigger loses
 * one on import. A cell that does not match was not prefixed, so every other value (`'quoted'` and `''`
 * included) goes out and comes back exactly as it is.
 */

/*
 * The first characters OWASP lists: `=`, `+`, `-`, `@`, tab (0x09) and carriage return (0x0D); and line
 * feed (0x0A), since CSV readers (our import among them) may read a CR as LF: so a `'` added before a CR is
 * still recognised, and removed, when the cell comes back with an LF.
 */
const NEEDS_PREFIX = /^'*[=+\-@\t\r\n]/
const PREFIXED = /^'+[=+\-@\t\r\n]/

/** The value as the export writes it: with one more leading `'` when a spreadsheet could run it. */
export function neutralizeFormula(value: string): string {
  return NEEDS_PREFIX.test(value) ? `'${value}` : value
}

/** The value {@link neutralizeFormula} was given, from a cell of our own CSV export. */
export function restoreFormula(cell: string): string {
  return PREFIXED.test(cell) ? cell.slice(1) : cell
}
