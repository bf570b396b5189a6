import type { Clock, RandomSource } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Database } from '../storage/open-database.ts'

// What the admin commands are given (run-cli.ts dispatches to them); apart from run-cli.ts, so a command
// module and the dispatcher do not import each other.

export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Raw text or bytes to standard output, in order (an export streamed out); resolves once it is written. */
  write?(chunk: string | Uint8Array): Promise<void>
  /** On a terminal: one status line redrawn in place on stderr (null clears it); absent elsewhere. */
  progress?(line: string | null): void
}

export interface CliDeps {
  openDb(): Promise<Database>
  config: Config
  clock: Clock
  random: RandomSource
  /** Everything on standard input (passwords are read from it, never from argv). */
  readStdin(): Promise<string>
  /** A file's bytes (an import file). */
  readFile(path: string): Promise<Uint8Array>
}
