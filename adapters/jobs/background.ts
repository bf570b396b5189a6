import type { Clock, RandomSource } from '../../core/types.ts'
import type { Log } from '../app/deps.ts'
import type { Config } from '../config.ts'
import type { Database } from '../storage/open-database.ts'
import { startEnrichment } from './enrichment-start.ts'
import { startImportWorker } from './import-worker.ts'
import { startMaintenance } from './maintenance.ts'
import { startSearchIndexer } from './search-indexer.ts'
import { startWalCheckpointer } from './wal-checkpointer.ts'
import { startWebhookDelivery } from './webhook-start.ts'

export interface BackgroundDeps {
  db: Database
  config: Config
  clock: Clock
  random: RandomSource
  log: Log
}

/** This process's background work, running. */
export interface Background {
  /**
   * Stops maintenance, the search indexer and the WAL checkpoint thread, then gives the jobs in flight
   * (enrichment, imports, webhook deliveries) 2 s to finish; one cut off is taken over when its lease runs
   * out. The database stays open.
   */
  stop(): Promise<void>
}

/**
 * Starts the background work of one process on `db`: maintenance, the enrichment workers (unless
 * ENRICHMENT=off), the webhook senders (unless WEBHOOKS=off), the search indexer, the import worker, and on
 * Bun with an embedded file the WAL checkpoint thread. Failures of maintenance, indexing and checkpoints
 * are logged as warnings; the work goes on.
 */
export async function startBackground(deps: BackgroundDeps): Promise<Background> {
  const { db, config, clock, log } = deps
  const warn = (msg: string) => (error: unknown) =>
    log('warn', { msg, error: error instanceof Error ? error.name : String(error).slice(0, 200) })
  const stopMaintenance = startMaintenance(db, clock, warn('maintenance failed'))
  const enrichment = startEnrichment({ db, config, clock, log })
  const webhooks = startWebhookDelivery({ db, config, clock, log })
  const searchIndexer = startSearchIndexer(db, warn('search indexing failed'))
  const imports = startImportWorker({ db, clock, random: deps.random, log })
  const checkpointer = await startWalCheckpointer(db, warn('WAL checkpoint failed'))
  return {
    async stop() {
      stopMaintenance()
      searchIndexer.stop()
      checkpointer?.stop()
      // In-flight jobs get a moment to finish; one cut off is taken over when its lease runs out.
      await Promise.race([
        Promise.all([enrichment?.stop(), imports.stop(), webhooks?.stop()]),
        new Promise((resolve) => setTimeout(resolve, 2000)),
      ])
    },
  }
}
