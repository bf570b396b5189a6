/**
 * Collects garbage now, on Bun: the import threads every ENTRIES_PER_COLLECTION entries they read, the
 * import worker when it claims an import and between batches. Bulk work (an import's parse and batches) makes garbage that outlives the
 * young generation: a window of CSV records or a piece of HTML is in hand across several batches, each an
 * await, so it is promoted, and only a full collection frees it; much of it lives outside the JavaScript
 * heap (csv-parse's Buffers, the file's bytes, WHATWG URL objects), so the collector's heuristics see little
 * pressure while RSS climbs. Measured at 100,000 Pocket rows in one process: 201 MiB without, 114 MiB
 * with a collection every 5,000 entries, each 5–11 ms (docs/benchmarks.md#import-and-export).
 * Node and Deno offer a collection only behind a flag: there this does nothing and their heuristics decide.
 */
export function collectGarbage(): void {
  ;(globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true)
}

/** Entries of bulk work between two collections. */
export const ENTRIES_PER_COLLECTION = 5000
