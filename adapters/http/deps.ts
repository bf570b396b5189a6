import type { Clock, RandomSource } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Database } from '../storage/open-database.ts'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type Log = (level: LogLevel, fields: Record<string, unknown>) => void

/** Everything the HTTP adapter needs, passed in by the composition root (server.ts) or a test. */
export interface AppDeps {
  db: Database
  config: Config
  clock: Clock
  random: RandomSource
  log: Log
}
