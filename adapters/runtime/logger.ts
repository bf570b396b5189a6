import type { Log, LogLevel } from '../app/deps.ts'

const RANK: Record<LogLevel | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

/** One JSON object per line on stdout. Callers never pass credentials; fields are whatever they give. */
export function createLogger(minimum: LogLevel | 'silent'): Log {
  return (level, fields) => {
    if (RANK[level] < RANK[minimum]) return
    console.log(JSON.stringify({ time: new Date().toISOString(), level, ...fields }))
  }
}
