import type { Clock } from '../../core/types.ts'
import { runMaintenance } from '../storage/maintenance.ts'
import type { Database } from '../storage/open-database.ts'

const EVERY_MS = 10 * 60 * 1000

/**
 * Runs maintenance (storage's `runMaintenance`) now and every 10 minutes (any process may; the deletes are
 * idempotent). Returns a stop function.
 */
export function startMaintenance(db: Database, clock: Clock, onError: (error: unknown) => void = () => {}): () => void {
  const run = () => runMaintenance(db, clock.now()).catch(onError)
  void run()
  const timer = setInterval(run, EVERY_MS)
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}
