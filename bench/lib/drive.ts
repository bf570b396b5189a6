/**
 * Closed-loop HTTP load as bench/run.ts drives it, for the other benches: wrk (bench/lib/wrk.ts) when it is
 * installed, pinned to the load generator's core, and the JavaScript generator of bench/lib/load.ts
 * otherwise (or with BENCH_NO_WRK=1); and the raw `Bun.serve` baseline (bench/raw-server.ts) replaying the
 * replies a bench recorded, so each scenario is read against it in the same run (docs/benchmarks.md#method).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runLoad, type LoadResult } from './load.ts'
import { generatorPrefix, startServer, type Server } from './processes.ts'
import { runWrk, wrkPath, type WrkRequest } from './wrk.ts'

export interface DriveOptions {
  connections: number
  durationS: number
  warmupS: number
  /** Distinguishes this run's `{n}` counters from every other run's (unique URLs across runs). */
  seed: string
}

/** What drives the load, for a bench's report. */
export const generatorName = (): string =>
  wrkPath() ? `wrk (${wrkPath()}), 1 thread` : 'the JavaScript generator (wrk not installed, or BENCH_NO_WRK set)'

/** Drives one mix (requests by weight; `{n}` in a path or body is unique to the request) against `origin`. */
export function drive(origin: string, mix: [WrkRequest, number][], options: DriveOptions): Promise<LoadResult> {
  if (wrkPath())
    return runWrk({
      origin,
      mix,
      connections: options.connections,
      durationS: options.durationS,
      warmupS: options.warmupS,
      prefix: generatorPrefix(),
      seed: options.seed,
    })
  const order = mix.flatMap(([request, weight]) => Array.from({ length: weight }, () => request))
  return runLoad({
    concurrency: options.connections,
    warmupMs: options.warmupS * 1000,
    durationMs: options.durationS * 1000,
    expect: [...new Set(mix.map(([request]) => request.expect))],
    request: (n) => {
      const kind = order[n % order.length]!
      const unique = `${options.seed}-${n}`
      return {
        url: `${origin}${kind.path.replaceAll('{n}', unique)}`,
        init: { method: kind.method, headers: kind.headers, body: kind.body?.replaceAll('{n}', unique) },
      }
    },
  })
}

/** A recorded reply: what raw `Bun.serve` sends for one of its paths. */
export interface RecordedReply {
  status: number
  body: string
}

/** Raw `Bun.serve` (bench/raw-server.ts) answering each path with its recorded reply; the file goes in `dir`. */
export async function startRawServer(dir: string, replies: Record<string, RecordedReply>): Promise<Server> {
  const file = join(dir, 'raw-bodies.json')
  writeFileSync(file, JSON.stringify(replies))
  return startServer('raw Bun.serve', ['bench/raw-server.ts'], { BODIES_FILE: file })
}

/** The same mix against raw `Bun.serve`: each kind's request sent to its recorded path there. */
export function rawMix(mix: [WrkRequest, number][], rawPaths: readonly string[]): [WrkRequest, number][] {
  return mix.map(([request, weight], i) => [{ ...request, path: rawPaths[i]! }, weight])
}
