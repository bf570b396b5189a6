/**
 * Pages of a person's list, kept per process and valid while the person's item version is unchanged
 * (docs/benchmarks.md#list-page-cache). The version lives in the database and triggers bump it on every
 * change to the person's items or folders, by any process, so a cached page is never served after a
 * change: each request reads the version first, then either the cache or the database.
 */
interface Entry<T> {
  version: number | string
  value: T
  bytes: number
}

/** Least recently used first out, bounded by the bytes its values take (as the caller measures them). */
export class PageCache<T> {
  readonly #entries = new Map<string, Entry<T>>()
  #bytes = 0

  constructor(private readonly maxBytes: number) {}

  /** The value cached under `key`, if it was cached at `version`; a stale one is dropped. */
  get(key: string, version: number | string): T | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    this.#entries.delete(key)
    if (entry.version !== version) {
      this.#bytes -= entry.bytes
      return undefined
    }
    this.#entries.set(key, entry)
    return entry.value
  }

  set(key: string, version: number | string, value: T, bytes: number): void {
    const previous = this.#entries.get(key)
    if (previous) {
      this.#entries.delete(key)
      this.#bytes -= previous.bytes
    }
    if (bytes > this.maxBytes) return
    this.#entries.set(key, { version, value, bytes })
    this.#bytes += bytes
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break
      this.#entries.delete(oldest)
      this.#bytes -= old.bytes
    }
  }
}
