import type { AnyElysia } from 'elysia'
import { Kind, type TSchema } from '@sinclair/typebox'
import { toOpenAPISchema, unwrapSchema } from '@elysiajs/openapi/openapi'
import { openApiDocumentation } from './openapi-info.ts'
import * as schemas from './schemas.ts'

// /openapi.json: the routes' own TypeBox schemas, as @elysiajs/openapi renders them, then finished here:
// shared schemas become named components, request bodies are JSON only, and what the guard in
// guard.ts adds to every operation (Idempotency-Key, RateLimit-*, WWW-Authenticate) is documented.

type Json = any

const OPENAPI_VERSION = '3.1.2' as const
const MUTATING = new Set(['post', 'put', 'patch', 'delete'])
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  400: 'The request is malformed: wrong body or query, invalid Idempotency-Key, or a value the operation rejects',
  401: 'The credential is missing, invalid, expired or revoked; `WWW-Authenticate` points to the resource metadata',
  403: 'The credential is valid but lacks the scope this operation needs, named in `requiredScope`',
  404: 'Not found',
  409: 'Conflict',
  413: 'The request body is over 64 KiB',
  415: 'The body is not `application/json`',
  422: 'This Idempotency-Key was already used for a different request',
  429: 'Rate limit exceeded: wait `Retry-After` seconds',
  500: 'Unexpected failure; retry with backoff and the same Idempotency-Key',
  503: 'Unavailable',
}

const stringHeader = (description: string, schema: Json = { type: 'string' }) => ({ description, schema })

const COMPONENT_HEADERS = {
  'RateLimit-Limit': stringHeader('Requests allowed per window for this credential', { type: 'integer', minimum: 0 }),
  'RateLimit-Remaining': stringHeader('Requests left in the current window', { type: 'integer', minimum: 0 }),
  'RateLimit-Reset': stringHeader('Seconds until the window resets', { type: 'integer', minimum: 0 }),
  'Retry-After': stringHeader('Seconds to wait before retrying', { type: 'integer', minimum: 0 }),
  'WWW-Authenticate': stringHeader(
    '`Bearer resource_metadata="…"`, with `error="invalid_token"` when a credential was sent, or `error="insufficient_scope", scope="…"` on 403',
  ),
  'Idempotent-Replayed': stringHeader(
    '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
    { type: 'string', enum: ['true'] },
  ),
  Link: stringHeader('`<…>; rel="next"`: the next page, when `limit` was given and more items follow'),
}

const COMPONENT_PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same method, path and body replays the first response (with `Idempotent-Replayed: true`) for 24 hours; the same key with a different request is 422, and while the first is still running, 409. Scoped to the credential (an API key, an OAuth grant across its refreshed tokens, a web session): another credential of the same person runs the request anew. No secret is kept for replay: an answer that is one (a connect code) is not kept at all, and a new webhook replays with `secret` null.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
}

const headerRef = (name: keyof typeof COMPONENT_HEADERS) => ({ $ref: `#/components/headers/${name}` })

function isTSchema(value: unknown): value is TSchema {
  return typeof value === 'object' && value !== null && Kind in value
}

/** Every TypeBox schema exported by schemas.ts (errors by their `_tag`), rendered as the routes are. */
function namedSchemas(): Map<string, Json> {
  const named = new Map<string, Json>()
  const add = (name: string, schema: TSchema) => {
    const rendered = unwrapSchema(schema, undefined, 'output', OPENAPI_VERSION)
    if (rendered) named.set(name, rendered)
  }
  for (const [name, value] of Object.entries(schemas)) if (isTSchema(value)) add(name, value)
  for (const [name, value] of Object.entries(schemas.Errors)) add(name, value)
  return named
}

/** JSON with sorted keys, so structurally equal schemas get the same key. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * Replaces every subschema equal to a named one by a `$ref`. The renderer folds `X | null` into
 * `type: [X, "null"]`; such a node whose non-null part is named becomes `anyOf: [$ref, null]`.
 */
function referenceNamed(node: Json, byKey: Map<string, string>, isRoot = false): Json {
  if (Array.isArray(node)) return node.map((item) => referenceNamed(item, byKey))
  if (!node || typeof node !== 'object') return node
  if (!isRoot) {
    const name = byKey.get(canonical(node))
    if (name) return { $ref: `#/components/schemas/${name}` }
    if (Array.isArray(node.type) && node.type.length === 2 && node.type.includes('null')) {
      const nonNull = { ...node, type: node.type.find((t: string) => t !== 'null') }
      const nonNullName = byKey.get(canonical(nonNull))
      if (nonNullName) return { anyOf: [{ $ref: `#/components/schemas/${nonNullName}` }, { type: 'null' }] }
    }
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, referenceNamed(v, byKey)]))
}

/** `type: [X, "null"]` with an `enum` lacking null would reject null: the renderer's folding loses it. */
function admitNullInEnums(node: Json): Json {
  if (Array.isArray(node)) return node.map(admitNullInEnums)
  if (!node || typeof node !== 'object') return node
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, admitNullInEnums(v)]))
  if (Array.isArray(out.type) && out.type.includes('null') && Array.isArray(out.enum) && !out.enum.includes(null))
    out.enum = [...out.enum, null]
  return out
}

function collectRefs(node: Json, into: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((item) => collectRefs(item, into))
  if (!node || typeof node !== 'object') return
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/'))
    into.add(node.$ref.slice('#/components/schemas/'.length))
  for (const value of Object.values(node)) collectRefs(value, into)
}

function finishOperation(method: string, operation: Json): void {
  const authenticated = !(Array.isArray(operation.security) && operation.security.length === 0)
  const mutating = MUTATING.has(method)
  const scopes: string[] | undefined = operation['x-required-scopes']
  // The guard's `auth` option writes the scopes; the sentence saying so is written here, once for all routes.
  if (scopes) {
    const needs = scopes.length === 0 ? 'Needs any valid credential.' : `Needs scope \`${scopes.join(' ')}\`.`
    operation.description = [operation.description, needs].filter(Boolean).join('\n\n')
  }

  for (const parameter of operation.parameters ?? []) {
    // A query string has no null: `?sort=` is the empty string.
    if (parameter.in === 'query' && Array.isArray(parameter.schema?.type)) {
      const types = parameter.schema.type.filter((t: string) => t !== 'null')
      parameter.schema.type = types.length === 1 ? types[0] : types
      if (Array.isArray(parameter.schema.enum))
        parameter.schema.enum = parameter.schema.enum.filter((v: unknown) => v !== null)
    }
  }
  if (authenticated && mutating)
    operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }]

  // The renderer lists form encodings beside JSON by default; the guard answers those with 415. A file
  // upload (an import: every media type a binary string) keeps the types it lists.
  const content = operation.requestBody?.content
  if (content?.['application/json'] && content['application/json'].schema?.format !== 'binary')
    operation.requestBody.content = { 'application/json': content['application/json'] }
  if (operation.requestBody && !operation.requestBody.description) delete operation.requestBody.description

  // A download (the export) names the media types its 200 may be in; the generated response says text/plain.
  const download: string[] | undefined = operation['x-download']
  if (download && operation.responses?.['200']) {
    operation.responses['200'].content = Object.fromEntries(
      download.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    )
    delete operation['x-download']
  }

  const paged = (operation.parameters ?? []).some((p: Json) => p.name === 'cursor')
  // The guard counts every authenticated call; a public operation that documents 429 is limited too.
  const rateLimited = authenticated || '429' in (operation.responses ?? {})
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    // A body-less response (t.Void) is rendered as `content: { type, description }`, which is not a media type map.
    if (response.content && !Object.keys(response.content).some((key) => key.includes('/'))) delete response.content
    if (!response.description || response.description === `Response for status ${status}`) {
      const errorTypes = new Set<string>()
      if (Number(status) >= 400) collectRefs(response.content?.['application/json']?.schema, errorTypes)
      const text = STATUS_TEXT[status] ?? `Status ${status}`
      response.description =
        errorTypes.size > 0 ? `${text} (${[...errorTypes].map((name) => `\`${name}\``).join(' or ')})` : text
    }
    const headers: Record<string, Json> = { ...response.headers }
    if (rateLimited && status !== '401') {
      headers['RateLimit-Limit'] = headerRef('RateLimit-Limit')
      headers['RateLimit-Remaining'] = headerRef('RateLimit-Remaining')
      headers['RateLimit-Reset'] = headerRef('RateLimit-Reset')
    }
    if (status === '429') headers['Retry-After'] = headerRef('Retry-After')
    if (status === '401' || status === '403') headers['WWW-Authenticate'] = headerRef('WWW-Authenticate')
    if (authenticated && mutating && status !== '401' && status !== '429')
      headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed')
    if (paged && status === '200') headers.Link = headerRef('Link')
    if (Object.keys(headers).length > 0) response.headers = headers
  }
}

/** The OpenAPI 3.1 document of every route of `app` that is not hidden. */
export function buildOpenApiDocument(app: AnyElysia, baseUrl: string): Json {
  const generated = toOpenAPISchema(app, undefined, undefined, undefined, OPENAPI_VERSION) as Json
  const named = namedSchemas()
  const byKey = new Map<string, string>()
  for (const [name, schema] of named) if (!byKey.has(canonical(schema))) byKey.set(canonical(schema), name)

  const paths: Json = admitNullInEnums(referenceNamed(generated.paths, byKey))
  const components: Record<string, Json> = {}
  for (const [name, schema] of named) components[name] = admitNullInEnums(referenceNamed(schema, byKey, true))

  for (const item of Object.values<Json>(paths)) {
    for (const method of METHODS) if (item[method]) finishOperation(method, item[method])
  }

  // Keep only the components something uses.
  const used = new Set<string>()
  collectRefs(paths, used)
  for (let size = -1; size !== used.size; ) {
    size = used.size
    for (const name of [...used]) collectRefs(components[name], used)
  }
  const usedSchemas = Object.fromEntries(
    Object.keys(components)
      .filter((name) => used.has(name))
      .sort()
      .map((name) => [name, components[name]]),
  )

  const documentation = openApiDocumentation(baseUrl)
  return {
    ...documentation,
    paths: Object.fromEntries(
      Object.keys(paths)
        .sort()
        .map((path) => [path, paths[path]]),
    ),
    components: {
      ...documentation.components,
      schemas: usedSchemas,
      parameters: COMPONENT_PARAMETERS,
      headers: COMPONENT_HEADERS,
    },
  }
}
