// The package's root (docs/embedding.md): one factory that builds the whole service, the same on Bun, Deno
// and Node. `server.ts` is its first caller.
import { systemClock, webRandom } from './core/time.ts'
import type { Log, LogLevel } from './adapters/app/deps.ts'
import { type Config, ConfigError, type ReadlaterOptions, resolveConfig } from './adapters/config.ts'
import { mountedAt } from './adapters/embed/prefix.ts'
import { createServer } from './adapters/http/app.ts'
import { startBackground, type Background } from './adapters/jobs/background.ts'
import { loadSigningKeys, SigningKeyError } from './adapters/oauth/signing-keys.ts'
import { closeSharedArticleThreads } from './adapters/reading/article-threads.ts'
import type { ConnectionInfo, RequestHandler, ServingHandler } from './adapters/runtime/connection.ts'
import { createLogger } from './adapters/runtime/logger.ts'
import { DatabaseOpenError, openDatabase } from './adapters/storage/open-database.ts'
import * as core from './core/index.ts'

export type { Config, ConnectionInfo, Log, LogLevel, ReadlaterOptions, RequestHandler, ServingHandler }
export { ConfigError, DatabaseOpenError, SigningKeyError }

export interface CreateReadlaterOptions extends ReadlaterOptions {
  /** Where log lines go; default one JSON object per line on stdout at `logLevel`. */
  log?: Log
  /**
   * Run the background work in this process (enrichment, webhook senders, imports, search indexing,
   * maintenance, WAL checkpoints); default true. With false the service answers requests and queues work
   * for another process on the same database to do.
   */
  background?: boolean
}

/** The service, built: mount `fetch` in any server; `close` stops its work and its database. */
export interface Readlater {
  /**
   * A standard fetch handler for the whole service (API, OAuth, MCP, web app). The second argument is what
   * the host passes beside the request (Bun's server, Deno's handler info, or `{ clientIp }`), so per-IP
   * limits see the client.
   */
  fetch: RequestHandler
  /**
   * The same handler for hosts that take a Response or a promise of one (`Bun.serve`, `Deno.serve`; what
   * `server.ts` serves): a request answered without waiting, such as the list on an embedded file, gets its
   * Response itself (docs/operations.md#embedding).
   */
  handle: ServingHandler
  /** Stops the background work (in-flight jobs get 2 s), then closes the database. */
  close(): Promise<void>
  /** The pure domain (URL normalization, capture rules, scopes, PKCE, …): `readlater/core`. */
  core: typeof core
  /** The configuration the options resolved to. */
  config: Readonly<Config>
  /** Which engine reads the database: bun:sqlite (Bun, a file), libsql (Deno and Node, a file) or the libSQL client. */
  engine: 'bun:sqlite' | 'libsql' | 'client'
}

/**
 * Builds the service from typed options, checked as `server.ts` checks the environment: a bad value is a
 * `ConfigError` naming the option; a database that cannot be opened a `DatabaseOpenError`; signing keys
 * stored encrypted without the right `encryptionKey` a `SigningKeyError`. Opens (and migrates) the
 * database, loads the token signing keys, and starts the background work unless `background: false`.
 */
export async function createReadlater(options: CreateReadlaterOptions = {}): Promise<Readlater> {
  const { log: givenLog, background = true, ...settings } = options
  const config = resolveConfig(settings)
  return createFromConfig(config, { log: givenLog, background })
}

/** `createReadlater` from a configuration already resolved (the server's, from its environment). */
export async function createFromConfig(
  config: Config,
  options: { log?: Log | undefined; background?: boolean } = {},
): Promise<Readlater> {
  const log = options.log ?? createLogger(config.logLevel)
  const clock = systemClock
  const db = await openDatabase(config.databaseUrl, config.databaseAuthToken)
  try {
    // The token signing key is made on first start (and kept in the database for every later start and process).
    await loadSigningKeys(db, clock, config.encryptionKey)
  } catch (error) {
    db.$client.close()
    throw error
  }
  const server = createServer({ db, config, clock, random: webRandom, log })
  const background: Background | null =
    options.background !== false ? await startBackground({ db, config, clock, random: webRandom, log }) : null
  let closed: Promise<void> | null = null
  const handle = mountedAt(config.baseUrl, server.handle)
  return {
    // A promise always, whatever the handler answered (an embedder may call `.then` on it).
    fetch: async (request, connection) => handle(request, connection),
    handle,
    core,
    config,
    engine: db.$engine,
    close() {
      closed ??= (async () => {
        await background?.stop()
        closeSharedArticleThreads()
        db.$client.close()
      })()
      return closed
    },
  }
}
