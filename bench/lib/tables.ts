/** What a bench prints: progress on stderr, results on stdout as lines and aligned tables. */
import { writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'

/** Progress, on stderr, so stdout holds only the results. */
export const log = (line: string): void => console.error(line)

/** The machine a run measured on, for a bench's first line: `bun 1.x, 2 cores, load 0.50 0.40 0.30`. */
export const machine = (): string =>
  `bun ${Bun.version}, ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`

/** A number with `digits` decimals, or `-` when it is not one (a run with no samples). */
export const fmt = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : '-')

/** A table with a rule under its header: the first column left-aligned, the others right-aligned. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of rows) console.log(line(row))
}

/**
 * Writes a run's results as JSON to `readlater-bench-<name>-<time>.json` in the temp directory and says where,
 * with the wall time since `started`.
 */
export function writeResults(name: string, results: object, started: number): void {
  const file = join(tmpdir(), `readlater-bench-${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(results, null, 2))
  console.log(`  results JSON: ${file}   (wall time ${((performance.now() - started) / 1000).toFixed(1)} s)`)
}

/** The run's failures, loudly (`what` names them), for its exit code: 1 when there were any, else 0. */
export function reportFailures(failures: readonly string[], what: string): number {
  if (failures.length === 0) return 0
  console.log('')
  console.log(`!!!!!!!!!! ${what}: these numbers are NOT valid !!!!!!!!!!`)
  for (const f of failures) console.log(`!!! ${f}`)
  return 1
}
