import { createHash } from 'node:crypto'

/**
 * Lowercase hex SHA-256 of a secret: the same function as core's `hashSecret` (a test holds them equal),
 * computed natively. The pure-JS hash cost about 30 µs a request under load, a quarter of a cached list
 * (docs/benchmarks.md#profile); `node:crypto` is there on Bun, Deno and Node. A speed twin of core's, on
 * purpose: keep both (docs/benchmarks.md#speed-twins).
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}
