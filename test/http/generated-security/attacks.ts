import type { Operation } from './operations.ts'

/** One request variation: credential, headers and raw body, and optionally what it must get. */
export interface Attempt {
  name: string
  token?: string
  /** A raw Authorization header (wins over `token`). */
  authorization?: string
  headers?: Record<string, string>
  body?: string
  expect?: { status: number | number[]; tag?: string }
  /** Must answer within a second (deep nesting once took seconds and gigabytes). */
  fast?: boolean
}

const JWT_ALG_NONE = `${btoa('{"alg":"none","typ":"at+jwt"}').replace(/=+$/, '')}.${btoa('{"sub":"x","scope":"saved-items:read"}').replace(/=+$/, '')}.`

/** Credentials that are not ours or not well-formed: each must be 401 invalid_token. */
export const MALFORMED_CREDENTIALS: Attempt[] = [
  { name: 'garbage bearer', authorization: 'Bearer garbage' },
  { name: 'a 10 KB bearer', authorization: `Bearer ${'A'.repeat(10_000)}` },
  { name: 'a JWT with alg none', authorization: `Bearer ${JWT_ALG_NONE}` },
  { name: 'Basic credentials', authorization: 'Basic dXNlcjpwYXNz' },
  { name: 'an API key with a NUL', authorization: `Bearer rlk_${'A'.repeat(21)}%00${'A'.repeat(19)}` },
  { name: 'an API key one character short', authorization: `Bearer rlk_${'A'.repeat(42)}` },
  { name: 'two bearer tokens', authorization: 'Bearer a, Bearer b' },
]

const validation = { status: 400, tag: 'ValidationError' }

/** A value of another JSON type than `value`. */
function wrongTypeOf(value: unknown): unknown[] {
  // Never null: optional fields here are nullable (null is their documented "none").
  if (typeof value === 'string') return [42, true, ['x'], { x: 1 }]
  if (typeof value === 'boolean') return ['true', 1]
  if (typeof value === 'number') return ['1', true]
  if (Array.isArray(value)) return ['x', { 0: 'x' }, [{ nested: true }]]
  return ['x', 1]
}

function nestedObjects(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

/** Hostile bodies built from a valid sample body: each must get a typed 4xx, or be legitimately accepted. */
export function hostileBodies(sample: Record<string, unknown>): Attempt[] {
  const json = { 'content-type': 'application/json' }
  const attempts: Attempt[] = [
    { name: '64 KiB of "["', headers: json, body: '['.repeat(64 * 1024), expect: validation, fast: true },
    { name: '33 nested objects', headers: json, body: nestedObjects(33), expect: validation, fast: true },
    {
      name: '16,000 nested arrays, balanced',
      headers: json,
      body: '['.repeat(16_000) + ']'.repeat(16_000),
      expect: validation,
      fast: true,
    },
    { name: 'not JSON', headers: json, body: '{"url": nope', expect: validation },
    { name: 'an empty body', headers: json, body: '', expect: { status: [400, 415] } },
    {
      name: 'JSON sent as text/plain',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(sample),
      expect: { status: 415, tag: 'UnsupportedMediaTypeError' },
    },
    { name: 'a JSON array', headers: json, body: JSON.stringify([sample]), expect: validation },
    {
      name: 'an extra property',
      headers: json,
      body: JSON.stringify({ ...sample, isAdmin: true }),
      expect: validation,
    },
    {
      name: 'over 64 KiB',
      headers: json,
      body: JSON.stringify({ ...sample, pad: 'x'.repeat(70_000) }),
      expect: { status: 413, tag: 'PayloadTooLargeError' },
    },
  ]
  for (const [field, value] of Object.entries(sample)) {
    for (const wrong of wrongTypeOf(value)) {
      attempts.push({
        name: `${field} as ${JSON.stringify(wrong)}`,
        headers: json,
        body: JSON.stringify({ ...sample, [field]: wrong }),
        expect: { status: [400, 404] },
      })
    }
    const strings =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value) && typeof value[0] === 'string'
          ? (value as string[])
          : []
    for (const text of strings.slice(0, 1)) {
      const put = (replacement: string): string =>
        JSON.stringify({ ...sample, [field]: Array.isArray(value) ? [replacement] : replacement })
      attempts.push({ name: `${field} of 60 KB`, headers: json, body: put('x'.repeat(60_000)) })
      for (const [what, inject] of [
        ['a NUL', '\u0000'],
        ['a bidi override', '\u202e'],
        ['a bidi isolate', '\u2066'],
        ['a zero-width space', '\u200b'],
      ]) {
        attempts.push({
          name: `${field} with ${what}`,
          headers: json,
          body: put(`${text.slice(0, 8)}${inject}${text.slice(8)}`),
        })
      }
      attempts.push({
        name: `${field} twice (duplicate key)`,
        headers: json,
        body: `${JSON.stringify(sample).slice(0, -1)},${JSON.stringify(field)}:${JSON.stringify(value)}}`,
      })
    }
  }
  return attempts
}

/** Hostile headers and cookies for an operation: none may cause a 5xx. */
export function hostileHeaders(op: Operation): Attempt[] {
  const attempts: Attempt[] = [
    {
      name: 'malformed session and CSRF cookies',
      headers: { cookie: 'rl_session=%zz; rl_csrf=%zz; __Host-rl_session=%' },
    },
    { name: 'a 16 KB cookie', headers: { cookie: `rl_session=${'a'.repeat(16_000)}` } },
    {
      name: 'garbage X-Forwarded-For',
      headers: { 'x-forwarded-for': '999.1.1.1, ::zz, <script>, ' + 'x'.repeat(2000) },
    },
    {
      name: 'a lying Content-Length',
      headers: { 'content-length': '99999999' },
      expect: op.jsonBody ? { status: [400, 413, 415] } : undefined,
    },
    { name: 'an odd Accept', headers: { accept: 'text/html;q=9, */*;;;, \x7f' } },
  ]
  if (op.mutating && !op.public) {
    attempts.push(
      {
        name: 'an Idempotency-Key with a control character',
        headers: { 'idempotency-key': 'key\u0001one' },
        expect: { status: 400, tag: 'ValidationError' },
      },
      {
        name: 'an Idempotency-Key of 300 characters',
        headers: { 'idempotency-key': 'k'.repeat(300) },
        expect: { status: 400, tag: 'ValidationError' },
      },
    )
  }
  return attempts
}
