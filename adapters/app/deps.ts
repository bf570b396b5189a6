import type { Clock, RandomSource } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Database } from '../storage/open-database.ts'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type Log = (level: LogLevel, fields: Record<string, unknown>) => void

/**
 * The application layer's dependencies: what the operations of `adapters/app` are given by everything that
 * calls them (REST routes, MCP tools, web pages, OAuth, the CLI). Built by `createReadlater` (index.ts), by
 * the CLI for the operations it shares, or by a test.
 */
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

/** A page read by the guarded fetch (docs/enrichment.md#fetch-guard): what enrichment and metadata-document reads get. */
export interface FetchedPage {
  finalUrl: string
  status: number
  contentType: string | null
  body: Uint8Array
  truncated: boolean
  redirects: number
  isHtml: boolean
}
