import type { Clock, RandomSource } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Database } from '../storage/open-database.ts'
import type { FetchedPage } from '../enrichment/guarded-fetch.ts'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type Log = (level: LogLevel, fields: Record<string, unknown>) => void

/** Everything the HTTP adapter needs, passed in by the composition root (server.ts) or a test. */
export interface AppDeps {
  db: Database
  config: Config
  clock: Clock
  random: RandomSource
  log: Log
  /**
   * Fetches a client ID metadata document (OAuth CIMD). Default: the guarded fetch, which never reaches a
   * private address. Tests inject one that serves documents for made-up public hosts.
   */
  fetchClientMetadata?: (url: string) => Promise<FetchedPage>
}
