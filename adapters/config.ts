/** Runtime configuration from environment variables (docs/operations.md#configuration). */
export interface Config {
  port: number
  host: string
  baseUrl: string
  appUrl: string
  databaseUrl: string
  databaseAuthToken: string | undefined
  rateLimitMax: number
  rateLimitWindowSeconds: number
  ipRateLimitMax: number
  /** Bytes of list pages each process keeps (docs/benchmarks.md#list-page-cache); 0 turns the cache off. */
  listCacheBytes: number
  signup: 'open' | 'closed'
  enrichment: boolean
  enrichAllowPrivate: boolean
  /** Whether this process sends webhook messages (docs/webhooks.md#operations); the outbox fills either way. */
  webhookDelivery: boolean
  /** Take the client IP from the last `X-Forwarded-For` hop (set it only behind your own reverse proxy). */
  trustProxy: boolean
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** Encrypts the token signing keys at rest (docs/oauth.md#signing-keys); at least 32 characters. */
  encryptionKey: string | undefined
}

export const DEFAULT_DATABASE_URL = 'file:./data/readlater.db'

export class ConfigError extends Error {}

function int(env: Record<string, string | undefined>, name: string, fallback: number, min = 1): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`)
  return value
}

function oneOf<T extends string>(
  env: Record<string, string | undefined>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
  return raw as T
}

const stripSlash = (url: string): string => url.replace(/\/+$/, '')

/** An absolute http(s) URL without query, fragment or credentials: the public address of the service. */
function publicUrl(name: string, raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`)
  if (url.search || url.hash || raw.includes('#') || raw.includes('?'))
    throw new ConfigError(`${name} must not have a query or fragment, got "${raw}"`)
  if (url.username || url.password) throw new ConfigError(`${name} must not carry a user name or password`)
  return stripSlash(raw)
}

const DATABASE_SCHEMES = ['file:', 'libsql:', 'http:', 'https:']

function databaseUrl(raw: string | undefined): string {
  if (!raw) return DEFAULT_DATABASE_URL
  if (raw === ':memory:') return raw
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(raw)?.[0]?.toLowerCase()
  if (!scheme || !DATABASE_SCHEMES.includes(scheme)) {
    // Never echo the value: a mistyped URL may carry a token.
    throw new ConfigError(
      `DATABASE_URL must start with file:, libsql:, http: or https:, got ${scheme ? `"${scheme}"` : 'no scheme'}`,
    )
  }
  return raw
}

export function readConfig(env: Record<string, string | undefined>): Config {
  const port = int(env, 'PORT', 3000, 0)
  const baseUrl = publicUrl('BASE_URL', env.BASE_URL || `http://localhost:${port}`)
  const encryptionKey = env.ENCRYPTION_KEY || undefined
  if (encryptionKey !== undefined && encryptionKey.length < 32)
    throw new ConfigError(`ENCRYPTION_KEY must be at least 32 characters, got ${encryptionKey.length}`)
  return {
    port,
    host: env.HOST || '127.0.0.1',
    baseUrl,
    appUrl: publicUrl('APP_URL', env.APP_URL || baseUrl),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    databaseAuthToken: env.DATABASE_AUTH_TOKEN || undefined,
    rateLimitMax: int(env, 'RATE_LIMIT_MAX', 600),
    rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_S', 60),
    ipRateLimitMax: int(env, 'IP_RATE_LIMIT_MAX', 20),
    listCacheBytes: int(env, 'LIST_CACHE_MB', 16, 0) * 1024 * 1024,
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'], 'open'),
    enrichment: oneOf(env, 'ENRICHMENT', ['on', 'off'], 'on') === 'on',
    enrichAllowPrivate: oneOf(env, 'ENRICH_ALLOW_PRIVATE', ['0', '1'], '0') === '1',
    webhookDelivery: oneOf(env, 'WEBHOOKS', ['on', 'off'], 'on') === 'on',
    trustProxy: oneOf(env, 'TRUST_PROXY', ['0', '1'], '0') === '1',
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    encryptionKey,
  }
}
