/**
 * Pages of a person's list, kept per process and valid while the person's item version is unchanged
 * (docs/benchmarks.md#list-page-cache). The version lives in the database and triggers bump it on every
 * change to the person's items or folders, by any process, so a cached page is never served after a
 * change: each request reads the version first, then either the cache or the database.
 */
export interface CachedPage<T> {
  version: number
  value: T
  /** The page as UTF-8 JSON, what the REST answer sends. */
  json: Uint8Array
}

/** Least recently used first out, bounded by the bytes of the JSON it holds. */
export class PageCache<T> {
  readonly #entries = new Map<string, CachedPage<T>>()
  #bytes = 0

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): CachedPage<T> | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    this.#entries.delete(key)
    if (entry.version !== version) {
      this.#bytes -= entry.json.byteLength
      return undefined
    }
    this.#entries.set(key, entry)
    return entry
  }

  set(key: string, entry: CachedPage<T>): void {
    const previous = this.#entries.get(key)
    if (previous) {
      this.#entries.delete(key)
      this.#bytes -= previous.json.byteLength
    }
    if (entry.json.byteLength > this.maxBytes) return
    this.#entries.set(key, entry)
    this.#bytes += entry.json.byteLength
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break
      this.#entries.delete(oldest)
      this.#bytes -= old.json.byteLength
    }
  }

  get bytes(): number {
    return this.#bytes
  }

  get size(): number {
    return this.#entries.size
  }
}
