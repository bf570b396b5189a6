/** Runtime configuration from environment variables, with the defaults of CONTRACT §1. */
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
  signup: 'open' | 'closed'
  enrichment: boolean
  enrichAllowPrivate: boolean
  /** Take the client IP from the last `X-Forwarded-For` hop (set it only behind your own reverse proxy). */
  trustProxy: boolean
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
}

export const DEFAULT_DATABASE_URL = 'file:./data/readlater.db'

export class ConfigError extends Error {}

function int(env: Record<string, string | undefined>, name: string, fallback: number, min = 1): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`)
  return value
}

function oneOf<T extends string>(env: Record<string, string | undefined>, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`)
  return raw as T
}

const stripSlash = (url: string): string => url.replace(/\/+$/, '')

export function readConfig(env: Record<string, string | undefined>): Config {
  const port = int(env, 'PORT', 3000, 0)
  const baseUrl = stripSlash(env.BASE_URL || `http://localhost:${port}`)
  return {
    port,
    host: env.HOST || '127.0.0.1',
    baseUrl,
    appUrl: stripSlash(env.APP_URL || baseUrl),
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databaseAuthToken: env.DATABASE_AUTH_TOKEN || undefined,
    rateLimitMax: int(env, 'RATE_LIMIT_MAX', 600),
    rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_S', 60),
    ipRateLimitMax: int(env, 'IP_RATE_LIMIT_MAX', 20),
    signup: oneOf(env, 'SIGNUP', ['open', 'closed'], 'open'),
    enrichment: oneOf(env, 'ENRICHMENT', ['on', 'off'], 'on') === 'on',
    enrichAllowPrivate: oneOf(env, 'ENRICH_ALLOW_PRIVATE', ['0', '1'], '0') === '1',
    trustProxy: oneOf(env, 'TRUST_PROXY', ['0', '1'], '0') === '1',
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'], 'info'),
  }
}
