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
  /**
   * Where webhooks go (docs/webhooks.md#api): the address rule a URL must pass when a webhook is created and
   * the one signed attempt of a test message. Default (set by createServer): the fetch guard's rule
   * (adapters/webhooks/targets.ts) and the webhook sender, which never reach a private address.
   */
  webhookTargets?: WebhookTargets
}

/** What the webhook use cases (adapters/app/webhooks.ts) need from the address guard and the sender. */
export interface WebhookTargets {
  /** Throws ValidationError when the URL breaks the port or address rule knowable before any DNS. */
  check(url: URL, allowPrivate: boolean): void
  /** One attempt of a message signed with its webhook's secret; never throws. */
  send(
    message: { id: string; url: string; secret: string; body: string },
    at: Date,
    options: { allowPrivate: boolean; userAgent: string },
  ): Promise<
    { delivered: true; responseStatus: number } | { delivered: false; responseStatus: number | null; error: string }
  >
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
