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
  /**
   * Browser origins `/mcp` accepts beside its own and loopback ones (docs/security.md#mcp-origin), each as
   * `URL.origin` serializes it; `'*'` accepts any.
   */
  mcpAllowedOrigins: readonly string[] | '*'
}

export const DEFAULT_DATABASE_URL = 'file:./data/readlater.db'

export class ConfigError extends Error {}

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

function databaseUrl(raw: string | undefined, name = 'DATABASE_URL'): string {
  if (!raw) return DEFAULT_DATABASE_URL
  if (raw === ':memory:') return raw
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(raw)?.[0]?.toLowerCase()
  if (!scheme || !DATABASE_SCHEMES.includes(scheme)) {
    // Never echo the value: a mistyped URL may carry a token.
    throw new ConfigError(
      `${name} must start with file:, libsql:, http: or https:, got ${scheme ? `"${scheme}"` : 'no scheme'}`,
    )
  }
  return raw
}

/**
 * What an embedder passes to `createReadlater` (docs/embedding.md#createreadlater): every setting of the environment
 * table (docs/operations.md#configuration), typed. Absent means the same default as an unset variable.
 */
export interface ReadlaterOptions {
  /** `file:` path, `:memory:`, or `libsql://…` / `http(s)://…` for a libSQL server or Turso. */
  databaseUrl?: string
  databaseAuthToken?: string
  /** The public address of the API, prefix included when mounted under one (`https://example.com/readlater`). */
  baseUrl?: string
  /** The public address of the web app; default `baseUrl`. */
  appUrl?: string
  signup?: 'open' | 'closed'
  /** Run enrichment workers in this process (default true). */
  enrichment?: boolean
  /** Let enrichment and webhooks reach loopback and private addresses: tests only. */
  enrichAllowPrivate?: boolean
  /** Run webhook senders in this process (default true). */
  webhooks?: boolean
  trustProxy?: boolean
  rateLimitMax?: number
  rateLimitWindowSeconds?: number
  ipRateLimitMax?: number
  /** MiB of list pages kept per process; 0 turns the cache off. */
  listCacheMb?: number
  /** At least 32 characters: encrypts signing keys and webhook secrets at rest. */
  encryptionKey?: string
  logLevel?: Config['logLevel']
  /** Origins (`https://host[:port]`) of browser-based MCP clients `/mcp` accepts, or `['*']` for any. */
  mcpAllowedOrigins?: readonly string[]
}

/** The names an embedder's option or an environment variable go by, for error messages. */
type Names = Record<keyof ReadlaterOptions, string>
const ENV_NAMES: Names = {
  databaseUrl: 'DATABASE_URL',
  databaseAuthToken: 'DATABASE_AUTH_TOKEN',
  baseUrl: 'BASE_URL',
  appUrl: 'APP_URL',
  signup: 'SIGNUP',
  enrichment: 'ENRICHMENT',
  enrichAllowPrivate: 'ENRICH_ALLOW_PRIVATE',
  webhooks: 'WEBHOOKS',
  trustProxy: 'TRUST_PROXY',
  rateLimitMax: 'RATE_LIMIT_MAX',
  rateLimitWindowSeconds: 'RATE_LIMIT_WINDOW_S',
  ipRateLimitMax: 'IP_RATE_LIMIT_MAX',
  listCacheMb: 'LIST_CACHE_MB',
  encryptionKey: 'ENCRYPTION_KEY',
  logLevel: 'LOG_LEVEL',
  mcpAllowedOrigins: 'MCP_ALLOWED_ORIGINS',
}
/** An option's own name, for an embedder's errors. */
const OPTION_NAMES = Object.fromEntries(Object.keys(ENV_NAMES).map((key) => [key, key])) as Names

function integer(names: Names, key: keyof ReadlaterOptions, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new ConfigError(`${names[key]} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`)
  return value
}

function choice<T extends string>(
  names: Names,
  key: keyof ReadlaterOptions,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw new ConfigError(`${names[key]} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
  return value as T
}

function flag(names: Names, key: keyof ReadlaterOptions, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean')
    throw new ConfigError(`${names[key]} must be true or false, got ${JSON.stringify(value)}`)
  return value
}

function text(names: Names, key: keyof ReadlaterOptions, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string') throw new ConfigError(`${names[key]} must be a string`)
  return value
}

/**
 * A list of browser origins: each `http(s)://host[:port]` with nothing after it, normalized as `URL.origin`
 * writes it (lowercase, default port dropped), or `*` alone for any origin.
 * @see docs/security.md#mcp-origin
 */
function origins(names: Names, key: keyof ReadlaterOptions, value: unknown): readonly string[] | '*' {
  if (value === undefined) return []
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
    throw new ConfigError(`${names[key]} must be a list of origins`)
  if (value.includes('*')) return '*'
  return value.map((entry: string) => {
    const url = URL.canParse(entry) ? new URL(entry) : null
    const bare =
      url !== null &&
      url.pathname === '/' &&
      !/[?#@]/.test(entry) &&
      (url.protocol === 'http:' || url.protocol === 'https:')
    if (!bare)
      throw new ConfigError(`${names[key]} must list origins (https://host[:port]) or *, got ${JSON.stringify(entry)}`)
    return url!.origin
  })
}

/**
 * The service's configuration from typed options, checked as the environment is (one `ConfigError` naming
 * the option). `port` and `host` are the server's own (`server.ts`), not an embedder's.
 */
export function resolveConfig(
  options: ReadlaterOptions,
  listen: { port: number; host: string } = { port: 3000, host: '127.0.0.1' },
  names: Names = OPTION_NAMES,
): Config {
  const known = new Set(Object.keys(OPTION_NAMES))
  const unknown = Object.keys(options).filter((key) => !known.has(key))
  if (unknown.length > 0) throw new ConfigError(`unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')}`)
  const baseUrl = publicUrl(names.baseUrl, text(names, 'baseUrl', options.baseUrl) ?? `http://localhost:${listen.port}`)
  const encryptionKey = text(names, 'encryptionKey', options.encryptionKey)
  if (encryptionKey !== undefined && encryptionKey.length < 32)
    throw new ConfigError(`${names.encryptionKey} must be at least 32 characters, got ${encryptionKey.length}`)
  return {
    port: listen.port,
    host: listen.host,
    baseUrl,
    appUrl: publicUrl(names.appUrl, text(names, 'appUrl', options.appUrl) ?? baseUrl),
    databaseUrl: databaseUrl(text(names, 'databaseUrl', options.databaseUrl), names.databaseUrl),
    databaseAuthToken: text(names, 'databaseAuthToken', options.databaseAuthToken),
    rateLimitMax: integer(names, 'rateLimitMax', options.rateLimitMax, 600),
    rateLimitWindowSeconds: integer(names, 'rateLimitWindowSeconds', options.rateLimitWindowSeconds, 60),
    ipRateLimitMax: integer(names, 'ipRateLimitMax', options.ipRateLimitMax, 20),
    listCacheBytes: integer(names, 'listCacheMb', options.listCacheMb, 16, 0) * 1024 * 1024,
    signup: choice(names, 'signup', options.signup, ['open', 'closed'], 'open'),
    enrichment: flag(names, 'enrichment', options.enrichment, true),
    enrichAllowPrivate: flag(names, 'enrichAllowPrivate', options.enrichAllowPrivate, false),
    webhookDelivery: flag(names, 'webhooks', options.webhooks, true),
    trustProxy: flag(names, 'trustProxy', options.trustProxy, false),
    logLevel: choice(names, 'logLevel', options.logLevel, ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
    encryptionKey,
    mcpAllowedOrigins: origins(names, 'mcpAllowedOrigins', options.mcpAllowedOrigins),
  }
}

/** The configuration from environment variables (docs/operations.md#configuration). */
export function readConfig(env: Record<string, string | undefined>): Config {
  const number = (name: string, min = 1): number | undefined => {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    const value = Number(raw)
    if (!Number.isInteger(value) || value < min)
      throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`)
    return value
  }
  const word = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const raw = env[name]
    if (raw === undefined || raw === '') return undefined
    if (!(allowed as readonly string[]).includes(raw))
      throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
    return raw as T
  }
  const onOff = (name: string) => (word(name, ['on', 'off']) === undefined ? undefined : env[name] === 'on')
  const oneZero = (name: string) => (word(name, ['0', '1']) === undefined ? undefined : env[name] === '1')
  const options: ReadlaterOptions = {
    databaseUrl: env.DATABASE_URL || undefined,
    databaseAuthToken: env.DATABASE_AUTH_TOKEN || undefined,
    baseUrl: env.BASE_URL || undefined,
    appUrl: env.APP_URL || undefined,
    signup: word('SIGNUP', ['open', 'closed']),
    enrichment: onOff('ENRICHMENT'),
    enrichAllowPrivate: oneZero('ENRICH_ALLOW_PRIVATE'),
    webhooks: onOff('WEBHOOKS'),
    trustProxy: oneZero('TRUST_PROXY'),
    rateLimitMax: number('RATE_LIMIT_MAX'),
    rateLimitWindowSeconds: number('RATE_LIMIT_WINDOW_S'),
    ipRateLimitMax: number('IP_RATE_LIMIT_MAX'),
    listCacheMb: number('LIST_CACHE_MB', 0),
    encryptionKey: env.ENCRYPTION_KEY || undefined,
    logLevel: word('LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent']),
    mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS
      ? env.MCP_ALLOWED_ORIGINS.split(',')
          .map((entry) => entry.trim())
          .filter(Boolean)
      : undefined,
  }
  return resolveConfig(options, { port: number('PORT', 0) ?? 3000, host: env.HOST || '127.0.0.1' }, ENV_NAMES)
}
