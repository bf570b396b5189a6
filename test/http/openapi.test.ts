import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, test } from 'bun:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import Ajv2020 from 'ajv/dist/2020.js'
import { ENDPOINT_RULES, toTemplate } from './endpoint-table.ts'
import { BASE, createHarness, type Harness } from '../helpers/harness.ts'

// /openapi.json: valid OpenAPI 3.1 (checked by a real validator), and it says what the service does:
// every route of the access table with its scope, its exact schemas, its errors and the headers the
// guard adds. That the live answers match it is checked on every call by test/helpers/harness.ts.

let h: Harness
let doc: any

beforeAll(async () => {
  h = await createHarness()
  const response = await h.server.fetch(new Request(`${BASE}/openapi.json`))
  expect(response.status).toBe(200)
  doc = await response.json()
})

// /mcp speaks JSON-RPC, not REST: it is described by its own tools/list, not by OpenAPI.
const REST_RULES = ENDPOINT_RULES.filter((rule) => !rule.pattern.startsWith('/connect/') && rule.pattern !== '/mcp')
const WRITE_RULES = REST_RULES.filter((rule) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(rule.method))
const AUTHED_RULES = REST_RULES.filter((rule) => rule.access !== 'public')
const name = (rule: { method: string; pattern: string }) => `${rule.method} ${rule.pattern}`

function operation(rule: { method: string; pattern: string }): any {
  const op = doc.paths?.[toTemplate(rule.pattern)]?.[rule.method.toLowerCase()]
  if (!op) throw new Error(`${name(rule)} is not in /openapi.json`)
  return op
}

/** The node with every local `$ref` replaced by what it points to. */
function deref(node: any): any {
  if (Array.isArray(node)) return node.map(deref)
  if (!node || typeof node !== 'object') return node
  if (typeof node.$ref === 'string') {
    expect(node.$ref.startsWith('#/')).toBe(true)
    return deref(
      node.$ref
        .slice(2)
        .split('/')
        .reduce((at: any, part: string) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc),
    )
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(v)]))
}

function jsonSchemaOf(response: any): any {
  const schema = response?.content?.['application/json']?.schema
  expect(schema).toBeDefined()
  return deref(schema)
}

/** The error `_tag`s a response schema admits (a single error body or a union of them). */
function errorTags(schema: any): string[] {
  const variants = schema.anyOf ?? schema.oneOf ?? [schema]
  return variants
    .map((variant: any) => {
      expect(variant.type).toBe('object')
      expect(variant.additionalProperties).toBe(false)
      expect(variant.required).toContain('_tag')
      expect(variant.required).toContain('message')
      expect(variant.properties.message).toEqual({ type: 'string' })
      return variant.properties._tag.const
    })
    .sort()
}

function walk(node: any, visit: (node: any, path: string) => void, path = '#'): void {
  if (Array.isArray(node)) return node.forEach((item, i) => walk(item, visit, `${path}/${i}`))
  if (!node || typeof node !== 'object') return
  visit(node, path)
  for (const [key, value] of Object.entries(node)) walk(value, visit, `${path}/${key}`)
}

const ajv = new Ajv2020({ strict: false, allErrors: true })

describe('GET /openapi.json', () => {
  test('is a valid OpenAPI 3.1 document of API version 1.0.0 naming the package’s version (CHANGELOG.md), served without a credential', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined()
    expect(doc.openapi.startsWith('3.1')).toBe(true)
    // The API description's version, not the package's (docs/api.md#versions).
    expect(doc.info.version).toBe('1.0.0')
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(doc.info['x-package-version']).toBe(pkg.version)
    expect(readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8')).toContain(`## ${pkg.version} (`)
    expect(doc.info.title).toBe('Readlater API')
    expect(doc.servers).toEqual([{ url: BASE }])
  })

  test('is JSON that any origin may read, and is revalidated rather than cached', async () => {
    const response = await h.server.fetch(new Request(`${BASE}/openapi.json`))
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(await response.json()).toEqual(doc)
  })

  test('declares the bearer scheme (a personal API key or an OAuth access token) and the oauth2 scheme beside it', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'oauth2'])
    expect(doc.components.securitySchemes.bearer).toEqual({
      type: 'http',
      scheme: 'bearer',
      description: expect.stringContaining('API key'),
    })
    expect(doc.security).toEqual([{ bearer: [] }, { oauth2: [] }])
  })

  test('the oauth2 scheme is the authorization code flow of the server at /api/auth, PKCE S256, with the scopes of docs/mcp.md#tools', () => {
    const scheme = doc.components.securitySchemes.oauth2
    expect(Object.keys(scheme).sort()).toEqual(['description', 'flows', 'type'])
    expect(scheme.type).toBe('oauth2')
    expect(scheme.description).toContain('PKCE')
    expect(scheme.description).toContain('S256')
    expect(scheme.flows).toEqual({
      authorizationCode: {
        authorizationUrl: `${BASE}/api/auth/oauth2/authorize`,
        tokenUrl: `${BASE}/api/auth/oauth2/token`,
        refreshUrl: `${BASE}/api/auth/oauth2/token`,
        scopes: {
          'saved-items:capture': 'save a URL to the queue',
          'saved-items:read': 'list and read Saved Items',
          'saved-items:write': 'update read state, Source, and folder assignment',
          'saved-items:delete': 'delete Saved Items',
          'folders:read': 'list Folders',
          'folders:write': 'create and update Folders',
          'folders:delete': 'delete Folders, keeping their Saved Items',
          'account:read': 'read the identity of the authenticated account',
          'webhooks:manage': 'create, list, test and delete webhooks, which send your library’s changes to a URL',
          offline_access: 'receive a refresh token',
        },
      },
    })
  })

  test('describes every REST route of the access table, and nothing else (no /docs, no /openapi.json)', () => {
    const documented = Object.entries<any>(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort()
    const expected = ENDPOINT_RULES.filter((rule) => rule.pattern !== '/mcp').map(
      (rule) => `${rule.method} ${toTemplate(rule.pattern)}`,
    )
    const rest = REST_RULES.map((rule) => `${rule.method} ${toTemplate(rule.pattern)}`)
    // The connect routes may be served by another module; when they are, they are documented too.
    for (const operationName of rest) expect(documented).toContain(operationName)
    // Anything else (web pages, /docs assets) must be hidden with `detail: { hide: true }`.
    const unexpected = documented.filter((operationName) => !expected.includes(operationName))
    expect(unexpected).toEqual([])
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/docs') || path.startsWith('/openapi'))).toEqual([])
  })

  test('gives every operation a distinct operationId, a summary and a tag the document declares', () => {
    const declaredTags = doc.tags.map((tag: { name: string }) => tag.name)
    const ids = REST_RULES.map((rule) => {
      const op = operation(rule)
      expect(op.summary.length).toBeGreaterThan(0)
      expect(op.tags.length).toBeGreaterThan(0)
      for (const tag of op.tags) expect(declaredTags).toContain(tag)
      return op.operationId
    })
    expect(new Set(ids).size).toBe(REST_RULES.length)
  })

  test('each authenticated operation accepts the bearer or the oauth2 scheme, each with exactly the scope the guard checks', () => {
    for (const rule of AUTHED_RULES) {
      const op = operation(rule)
      // An operation needing two scopes (the import, the export) lists both.
      const scopes = rule.access.split(' ')
      expect({ op: name(rule), security: op.security }).toEqual({
        op: name(rule),
        security: [{ bearer: scopes }, { oauth2: scopes }],
      })
      expect(op['x-required-scopes']).toEqual(scopes)
      expect(op.description).toContain(`\`${rule.access}\``)
    }
  })

  test('the public health checks need no credential and answer { ok: boolean }', () => {
    for (const rule of REST_RULES.filter((r) => r.access === 'public')) {
      const op = operation(rule)
      expect(op.security).toEqual([])
      expect(jsonSchemaOf(op.responses['200'])).toEqual({
        type: 'object',
        additionalProperties: false,
        required: ['ok'],
        properties: { ok: { type: 'boolean' } },
      })
      expect(op.parameters).toBeUndefined()
    }
  })

  test('each authenticated operation documents 401, 403, 429 and 500 with the typed error bodies', () => {
    for (const rule of AUTHED_RULES) {
      const { responses } = operation(rule)
      expect({ op: name(rule), tags: errorTags(jsonSchemaOf(responses['401'])) }).toEqual({
        op: name(rule),
        tags: ['Unauthorized'],
      })
      expect(errorTags(jsonSchemaOf(responses['403']))).toEqual(['InsufficientScopeError'])
      expect(jsonSchemaOf(responses['403']).properties.requiredScope).toEqual({ type: 'string' })
      expect(errorTags(jsonSchemaOf(responses['429']))).toEqual(['RateLimitExceeded'])
      expect(errorTags(jsonSchemaOf(responses['500']))).toEqual(['InternalError'])
    }
  })

  test('401 and 403 document WWW-Authenticate; 429 documents RateLimit-* and Retry-After', () => {
    for (const rule of AUTHED_RULES) {
      const { responses } = operation(rule)
      expect(Object.keys(deref(responses['401'].headers))).toEqual(['WWW-Authenticate'])
      expect(Object.keys(deref(responses['403'].headers))).toContain('WWW-Authenticate')
      const limited = deref(responses['429'].headers)
      for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) {
        expect(limited[header].schema).toEqual({ type: 'integer', minimum: 0 })
        expect(limited[header].description.length).toBeGreaterThan(0)
      }
    }
  })

  test('every answer to an authenticated call past the credential check documents the RateLimit-* headers', () => {
    for (const rule of AUTHED_RULES) {
      for (const [status, response] of Object.entries<any>(operation(rule).responses)) {
        if (status === '401') continue
        expect({ op: name(rule), status, headers: Object.keys(response.headers ?? {}) }).toEqual({
          op: name(rule),
          status,
          headers: expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
        })
      }
    }
  })

  test('every write documents 400, 409, 413, 415 and 422 with the idempotency and body-limit errors', () => {
    for (const rule of WRITE_RULES) {
      const { responses } = operation(rule)
      expect({ op: name(rule), has: errorTags(jsonSchemaOf(responses['400'])).includes('ValidationError') }).toEqual({
        op: name(rule),
        has: true,
      })
      expect(errorTags(jsonSchemaOf(responses['409']))).toContain('IdempotencyKeyInFlightError')
      // An import file over its limit is refused with 400 ImportFormatError (docs/import-export.md#imports), not 413.
      if (rule.pattern === '/v1/imports')
        expect(errorTags(jsonSchemaOf(responses['400']))).toContain('ImportFormatError')
      else expect(errorTags(jsonSchemaOf(responses['413']))).toEqual(['PayloadTooLargeError'])
      expect(errorTags(jsonSchemaOf(responses['415']))).toEqual(['UnsupportedMediaTypeError'])
      // Creating a highlight also answers 422 when the article lacks the quote (docs/highlights.md#anchoring).
      const own422 = rule.pattern === '/v1/saved-items/:id/highlights' ? ['HighlightAnchorError'] : []
      expect(errorTags(jsonSchemaOf(responses['422'])).sort()).toEqual([...own422, 'IdempotencyKeyReuseError'].sort())
    }
  })

  test('every write documents the optional Idempotency-Key header (1–255 printable ASCII); reads do not', () => {
    for (const rule of REST_RULES) {
      const parameters = deref(operation(rule).parameters ?? [])
      const key = parameters.find((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')
      if (rule.method === 'GET') {
        expect(key).toBeUndefined()
        continue
      }
      expect({ op: name(rule), key }).toEqual({
        op: name(rule),
        key: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: expect.stringContaining('replays'),
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        },
      })
      const validate = ajv.compile(key.schema)
      expect([
        validate('order-42'),
        validate(''),
        validate('x'.repeat(256)),
        validate('naïve'),
        validate('x'.repeat(255)),
      ]).toEqual([true, false, false, false, true])
      expect(
        Object.keys(
          deref(
            operation(rule).responses['200'] ??
              operation(rule).responses['201'] ??
              operation(rule).responses['202'] ??
              operation(rule).responses['204'],
          ).headers,
        ),
      ).toContain('Idempotent-Replayed')
    }
  })

  test('path parameters are the documented {id} strings (and an archived image’s {n})', () => {
    for (const rule of REST_RULES.filter((r) => r.pattern.includes(':id'))) {
      const path = deref(operation(rule).parameters).filter((p: any) => p.in === 'path')
      const names = rule.pattern === '/v1/saved-items/:id/images/:n' ? ['id', 'n'] : ['id']
      expect(path).toEqual(names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })))
    }
  })

  test('GET /v1/saved-items/{id}/images/{n}: the image in one of the five sniffed types; 404 SavedItemNotFoundError or ImageNotFoundError', () => {
    const op = doc.paths['/v1/saved-items/{id}/images/{n}'].get
    expect(Object.keys(op.responses['200'].content).sort()).toEqual([
      'image/avif',
      'image/gif',
      'image/jpeg',
      'image/png',
      'image/webp',
    ])
    for (const media of Object.values<any>(op.responses['200'].content))
      expect(media.schema).toEqual({ type: 'string', format: 'binary' })
    expect(errorTags(jsonSchemaOf(op.responses['404']))).toEqual(['ImageNotFoundError', 'SavedItemNotFoundError'])
    expect(op.description).toContain('immutable')
  })

  test('request bodies are JSON only and closed objects (additionalProperties: false)', () => {
    const withBody = REST_RULES.filter((rule) => rule.jsonBody)
    expect(withBody.length).toBeGreaterThan(0)
    for (const rule of REST_RULES) {
      const body = operation(rule).requestBody
      // The import takes the file itself: each of its media types as a binary string.
      if (rule.pattern === '/v1/imports' && rule.method === 'POST') {
        expect(Object.keys(body.content).sort()).toEqual([
          'application/json',
          'application/zip',
          'text/csv',
          'text/html',
          'text/plain',
        ])
        for (const media of Object.values<any>(body.content))
          expect(media.schema).toEqual({ type: 'string', format: 'binary' })
        continue
      }
      if (!rule.jsonBody) {
        expect({ op: name(rule), body }).toEqual({ op: name(rule), body: undefined })
        continue
      }
      expect(body.required).toBe(true)
      expect(Object.keys(body.content)).toEqual(['application/json'])
      const schema = deref(body.content['application/json'].schema)
      expect({ op: name(rule), type: schema.type, additionalProperties: schema.additionalProperties }).toEqual({
        op: name(rule),
        type: 'object',
        additionalProperties: false,
      })
    }
  })

  test('uses JSON Schema null types, never the OpenAPI 3.0 nullable keyword', () => {
    const offenders: string[] = []
    walk(doc, (node, path) => {
      if ('nullable' in node) offenders.push(path)
      // A nullable enum must list null, or it would reject the null it claims to allow.
      if (
        Array.isArray(node.type) &&
        node.type.includes('null') &&
        Array.isArray(node.enum) &&
        !node.enum.includes(null)
      )
        offenders.push(path)
    })
    expect(offenders).toEqual([])
  })

  test('every 204 answer documents no body', () => {
    for (const rule of REST_RULES.filter((r) => r.method === 'DELETE')) {
      const { responses } = operation(rule)
      expect(Object.keys(responses)).toContain('204')
      expect(responses['204'].content).toBeUndefined()
      expect(responses['200']).toBeUndefined()
    }
  })
})

describe('the SavedItem schema (docs/api.md#endpoints)', () => {
  const FIELDS = [
    'id',
    'originalUrl',
    'normalizedUrl',
    'host',
    'title',
    'description',
    'siteName',
    'faviconUrl',
    'faviconLightUrl',
    'faviconDarkUrl',
    'imageUrl',
    'canonicalUrl',
    'previewSummary',
    'type',
    'tags',
    'enrichmentStatus',
    'sourceName',
    'captureChannel',
    'folder',
    'isRead',
    'lastSavedAt',
    'createdAt',
    'updatedAt',
  ]
  const REQUIRED = [
    'id',
    'originalUrl',
    'normalizedUrl',
    'host',
    'type',
    'tags',
    'enrichmentStatus',
    'folder',
    'isRead',
    'lastSavedAt',
    'createdAt',
    'updatedAt',
  ]
  const item = {
    id: '019a0000-0000-7000-8000-000000000001',
    originalUrl: 'https://example.org/a',
    normalizedUrl: 'https://example.org/a',
    host: 'example.org',
    title: 'A',
    description: null,
    siteName: null,
    faviconUrl: null,
    faviconLightUrl: null,
    faviconDarkUrl: null,
    imageUrl: null,
    canonicalUrl: null,
    previewSummary: null,
    type: 'website',
    tags: ['ai', 'front-end'],
    enrichmentStatus: 'pending',
    sourceName: null,
    captureChannel: null,
    folder: null,
    isRead: false,
    lastSavedAt: '2026-11-22T10:00:00.000Z',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  }
  let validate: ReturnType<typeof ajv.compile>

  beforeAll(() => {
    validate = ajv.compile(deref(doc.components.schemas.SavedItem))
  })

  test('is a named component with exactly the spec fields, the spec-required ones required, nothing else allowed', () => {
    const schema = deref(doc.components.schemas.SavedItem)
    expect(schema.type).toBe('object')
    expect(schema.additionalProperties).toBe(false)
    expect(Object.keys(schema.properties).sort()).toEqual([...FIELDS].sort())
    expect([...schema.required].sort()).toEqual([...REQUIRED].sort())
  })

  test('is the body of every single-item answer and of the list', () => {
    for (const pattern of [
      '/v1/saved-items/{id}/open',
      '/v1/saved-items/{id}/read',
      '/v1/saved-items/{id}/unread',
      '/v1/saved-items/{id}/read-state',
    ]) {
      expect(doc.paths[pattern].post.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/SavedItem',
      })
    }
    expect(doc.paths['/v1/saved-items/{id}/folder'].put.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SavedItem',
    })
    const list = jsonSchemaOf(doc.paths['/v1/saved-items'].get.responses['200'])
    expect(list).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['savedItems'],
      properties: { savedItems: { type: 'array', items: deref(doc.components.schemas.SavedItem) } },
    })
  })

  test('accepts an item with every optional field null, or absent', () => {
    expect(validate(item)).toBe(true)
    const {
      title,
      description,
      siteName,
      faviconUrl,
      faviconLightUrl,
      faviconDarkUrl,
      imageUrl,
      canonicalUrl,
      previewSummary,
      sourceName,
      captureChannel,
      ...bare
    } = item
    expect(validate(bare)).toBe(true)
  })

  test('accepts every enumerated value of type, tags, enrichmentStatus and captureChannel, and a folder', () => {
    for (const type of ['article', 'video', 'website', 'repository']) expect(validate({ ...item, type })).toBe(true)
    expect(
      validate({ ...item, tags: ['ai', 'tools', 'typescript', 'security', 'design', 'backend', 'front-end'] }),
    ).toBe(true)
    for (const enrichmentStatus of ['pending', 'enriched', 'failed'])
      expect(validate({ ...item, enrichmentStatus })).toBe(true)
    for (const captureChannel of [
      'chrome-extension',
      'ios-app',
      'ios-share-extension',
      'raycast',
      'web-companion',
      'api',
    ]) {
      expect(validate({ ...item, captureChannel })).toBe(true)
    }
    expect(validate({ ...item, folder: { id: 'f1', name: 'Reading' } })).toBe(true)
  })

  test('rejects an extra field, a missing required field, and values outside the enumerations', () => {
    expect(validate({ ...item, userId: 'u1' })).toBe(false)
    const { folder, ...noFolder } = item
    expect(validate(noFolder)).toBe(false)
    expect(validate({ ...item, type: 'podcast' })).toBe(false)
    expect(validate({ ...item, tags: ['cooking'] })).toBe(false)
    expect(validate({ ...item, enrichmentStatus: 'done' })).toBe(false)
    expect(validate({ ...item, captureChannel: 'fax' })).toBe(false)
    expect(validate({ ...item, folder: { id: 'f1', name: 'Reading', color: 'red' } })).toBe(false)
    expect(validate({ ...item, isRead: 'no' })).toBe(false)
  })
})

describe('the operations of docs/api.md#endpoints', () => {
  test('POST /v1/captures: 201 created and 200 updated, each with the saved item; 400 InvalidUrlError; 404 FolderNotFoundError', () => {
    const { responses, requestBody } = doc.paths['/v1/captures'].post
    const created = jsonSchemaOf(responses['201'])
    const updated = jsonSchemaOf(responses['200'])
    for (const [schema, result] of [
      [created, 'created'],
      [updated, 'updated'],
    ] as const) {
      expect(schema.type).toBe('object')
      expect(schema.additionalProperties).toBe(false)
      expect([...schema.required].sort()).toEqual(['captureResult', 'savedItem'])
      expect(schema.properties.captureResult).toEqual({ const: result, type: 'string' })
      expect(schema.properties.savedItem).toEqual(deref(doc.components.schemas.SavedItem))
    }
    expect(errorTags(jsonSchemaOf(responses['400']))).toEqual(['InvalidUrlError', 'ValidationError'])
    expect(
      jsonSchemaOf(responses['400']).anyOf.find((v: any) => v.properties._tag.const === 'InvalidUrlError').required,
    ).toContain('url')
    expect(errorTags(jsonSchemaOf(responses['404']))).toEqual(['FolderNotFoundError'])
    expect(jsonSchemaOf(responses['404']).required).toContain('folderId')

    const body = deref(requestBody.content['application/json'].schema)
    expect(Object.keys(body.properties).sort()).toEqual([
      'captureChannel',
      'folderId',
      'html',
      'sourceName',
      'tags',
      'url',
    ])
    expect(body.required).toEqual(['url'])
    const check = ajv.compile(body)
    expect(
      check({ url: 'https://example.org', sourceName: null, captureChannel: null, tags: null, folderId: null }),
    ).toBe(true)
    expect(check({ url: 'https://example.org', captureChannel: 'raycast', tags: ['ai'] })).toBe(true)
    expect(check({ url: 'https://example.org', captureChannel: 'fax' })).toBe(false)
    expect(check({ url: 'https://example.org', extra: 1 })).toBe(false)
    expect(check({ url: 'https://example.org', html: '<p>page</p>' })).toBe(true)
    expect(check({ url: 'https://example.org', html: null })).toBe(false)
    expect(check({})).toBe(false)
  })

  test('GET /v1/saved-items: optional sort (four values) and folder query, 400 ValidationError, 404 FolderNotFoundError', () => {
    const op = doc.paths['/v1/saved-items'].get
    const query = Object.fromEntries(
      deref(op.parameters)
        .filter((p: any) => p.in === 'query')
        .map((p: any) => [p.name, p]),
    )
    expect(query.sort).toEqual({
      name: 'sort',
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['newest', 'oldest', 'title', 'unread'] },
    })
    expect(query.folder.required).toBe(false)
    expect(query.folder.schema.type).toBe('string')
    expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['ValidationError'])
    expect(errorTags(jsonSchemaOf(op.responses['404']))).toEqual(['FolderNotFoundError'])
    expect(Object.keys(deref(op.responses['200'].headers))).toContain('Link')
  })

  test('the item state changes answer 404 SavedItemNotFoundError; PUT …/folder also FolderNotFoundError', () => {
    for (const pattern of [
      '/v1/saved-items/{id}/open',
      '/v1/saved-items/{id}/read',
      '/v1/saved-items/{id}/unread',
      '/v1/saved-items/{id}/read-state',
    ]) {
      expect(errorTags(jsonSchemaOf(doc.paths[pattern].post.responses['404']))).toEqual(['SavedItemNotFoundError'])
    }
    expect(
      deref(doc.paths['/v1/saved-items/{id}/read-state'].post.requestBody.content['application/json'].schema),
    ).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['isRead'],
      properties: { isRead: { type: 'boolean' } },
    })
    const setFolder = doc.paths['/v1/saved-items/{id}/folder'].put
    expect(errorTags(jsonSchemaOf(setFolder.responses['404']))).toEqual([
      'FolderNotFoundError',
      'SavedItemNotFoundError',
    ])
    const body = ajv.compile(deref(setFolder.requestBody.content['application/json'].schema))
    expect([body({ folderId: 'f1' }), body({ folderId: null }), body({}), body({ folderId: 1 })]).toEqual([
      true,
      true,
      false,
      false,
    ])
  })

  test('folders: list, create and rename answer the Folder schema with their name errors; delete answers 204 or 404', () => {
    const folder = deref(doc.components.schemas.Folder)
    expect(folder).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: { type: 'string' }, name: { type: 'string' } },
    })
    expect(jsonSchemaOf(doc.paths['/v1/folders'].get.responses['200'])).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['folders'],
      properties: { folders: { type: 'array', items: folder } },
    })
    for (const op of [doc.paths['/v1/folders'].post, doc.paths['/v1/folders/{id}'].patch]) {
      expect(jsonSchemaOf(op.responses['200'])).toEqual(folder)
      expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['InvalidFolderNameError', 'ValidationError'])
      expect(errorTags(jsonSchemaOf(op.responses['409']))).toEqual([
        'FolderNameConflictError',
        'IdempotencyKeyInFlightError',
      ])
      expect(deref(op.requestBody.content['application/json'].schema)).toEqual({
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: { name: { type: 'string' } },
      })
    }
    expect(errorTags(jsonSchemaOf(doc.paths['/v1/folders/{id}'].patch.responses['404']))).toEqual([
      'FolderNotFoundError',
    ])
    expect(errorTags(jsonSchemaOf(doc.paths['/v1/folders/{id}'].delete.responses['404']))).toEqual([
      'FolderNotFoundError',
    ])
  })

  test('GET /v1/saved-items/{id}/content: the article as html and text, or markdown; 404 SavedItemNotFoundError or ContentNotFoundError', () => {
    const op = doc.paths['/v1/saved-items/{id}/content'].get
    const head = [
      'byline',
      'extractedAt',
      'lang',
      'progress',
      'readingMinutes',
      'savedItemId',
      'siteName',
      'title',
      'wordCount',
    ]
    const variants = jsonSchemaOf(op.responses['200']).anyOf
    expect(variants.map((variant: any) => [...variant.required].sort())).toEqual([
      [...head, 'html', 'text'].sort(),
      [...head, 'markdown'].sort(),
    ])
    for (const variant of variants) {
      expect(variant.additionalProperties).toBe(false)
      expect(variant.properties.progress).toMatchObject({ type: 'number', minimum: 0, maximum: 1 })
      expect(variant.properties.readingMinutes).toMatchObject({ type: 'integer', minimum: 1 })
      for (const field of ['title', 'byline', 'siteName', 'lang'])
        expect(ajv.compile(variant.properties[field])(null)).toBe(true)
      expect(ajv.compile(variant.properties.wordCount)('3')).toBe(false)
    }
    const format = deref(op.parameters).find((p: any) => p.in === 'query' && p.name === 'format')
    expect(format).toMatchObject({ required: false, schema: { type: 'string', enum: ['html', 'markdown'] } })
    expect(errorTags(jsonSchemaOf(op.responses['404']))).toEqual(['ContentNotFoundError', 'SavedItemNotFoundError'])
    for (const variant of jsonSchemaOf(op.responses['404']).anyOf) expect(variant.required).toContain('savedItemId')
    expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['ValidationError'])
  })

  test('PUT /v1/saved-items/{id}/progress: { progress } from 0 to 1 answers { savedItemId, progress, updatedAt }', () => {
    const op = doc.paths['/v1/saved-items/{id}/progress'].put
    const body = deref(op.requestBody.content['application/json'].schema)
    expect(body).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['progress'],
      properties: { progress: { type: 'number', minimum: 0, maximum: 1 } },
    })
    const ok = jsonSchemaOf(op.responses['200'])
    expect([...ok.required].sort()).toEqual(['progress', 'savedItemId', 'updatedAt'])
    expect(errorTags(jsonSchemaOf(op.responses['404']))).toEqual(['SavedItemNotFoundError'])
    const check = ajv.compile(body)
    expect(check({ progress: 0 })).toBe(true)
    expect(check({ progress: 1 })).toBe(true)
    expect(check({ progress: 1.01 })).toBe(false)
    expect(check({ progress: '0.5' })).toBe(false)
  })

  test('GET /v1/search: q, limit and cursor; results of { savedItem, snippet }; the query syntax described; 400 ValidationError', () => {
    const op = doc.paths['/v1/search'].get
    const query = Object.fromEntries(
      deref(op.parameters)
        .filter((p: any) => p.in === 'query')
        .map((p: any) => [p.name, p]),
    )
    expect(Object.keys(query).sort()).toEqual(['cursor', 'limit', 'q'])
    expect(query.q.required).toBe(true)
    expect(query.limit.required).toBe(false)
    const ok = jsonSchemaOf(op.responses['200'])
    expect(ok.required).toEqual(['results'])
    const result = deref(ok.properties.results.items)
    expect([...result.required].sort()).toEqual(['savedItem', 'snippet'])
    expect(result.properties.savedItem).toEqual(deref(doc.components.schemas.SavedItem))
    expect(ajv.compile(result.properties.snippet)(null)).toBe(true)
    expect(ajv.compile(result.properties.snippet)('x'.repeat(201))).toBe(false)
    for (const word of ['is:read', 'type:', 'tag:', 'site:', 'folder:', 'status:', 'after:', 'before:', 'OR', '-word'])
      expect(op.description).toContain(word)
    expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['ValidationError'])
  })

  test('GET /v1/me answers { id, email }', () => {
    expect(jsonSchemaOf(doc.paths['/v1/me'].get.responses['200'])).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'email'],
      properties: { id: { type: 'string' }, email: { type: 'string' } },
    })
  })
})

describe('the connect operations of docs/oauth.md#connect-flow', () => {
  const CODES = [
    'unknown_client',
    'invalid_redirect_uri',
    'invalid_scope',
    'invalid_code',
    'invalid_verifier',
    'client_mismatch',
  ]

  test('both are documented under the Connect tag with a summary and distinct operationIds', () => {
    const authorize = doc.paths['/connect/authorize']?.post
    const exchange = doc.paths['/connect/exchange']?.post
    expect(authorize).toBeDefined()
    expect(exchange).toBeDefined()
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('Connect')
    for (const op of [authorize, exchange]) {
      expect(op.tags).toEqual(['Connect'])
      expect(op.summary.length).toBeGreaterThan(0)
    }
    const ids = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId))
    expect(new Set(ids).size).toBe(ids.length)
  })

  test('ConnectError is { _tag, message, code } with code one of the six of docs/api.md#errors', () => {
    expect(deref(doc.components.schemas.ConnectError)).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['_tag', 'message', 'code'],
      properties: {
        _tag: { const: 'ConnectError', type: 'string' },
        message: { type: 'string' },
        code: { type: 'string', enum: CODES },
      },
    })
  })

  test('POST /connect/authorize: any credential by bearer or oauth2, the exact body, { code }, ConnectError or ValidationError, 401, 429', () => {
    const op = doc.paths['/connect/authorize'].post
    expect(op.security).toEqual([{ bearer: [] }, { oauth2: [] }])
    expect(op['x-required-scopes']).toEqual([])
    const body = deref(op.requestBody.content['application/json'].schema)
    expect(op.requestBody.required).toBe(true)
    expect(Object.keys(op.requestBody.content)).toEqual(['application/json'])
    expect(body.type).toBe('object')
    expect(body.additionalProperties).toBe(false)
    expect(Object.keys(body.properties).sort()).toEqual([
      'client',
      'codeChallenge',
      'codeChallengeMethod',
      'deviceHint',
      'label',
      'redirectUri',
      'scopes',
    ])
    expect([...body.required].sort()).toEqual([
      'client',
      'codeChallenge',
      'codeChallengeMethod',
      'label',
      'redirectUri',
      'scopes',
    ])
    // client and scope values are plain strings: an unknown one is a ConnectError, not a schema failure.
    expect(body.properties.client.type).toBe('string')
    expect(body.properties.client.enum).toBeUndefined()
    expect(body.properties.scopes).toMatchObject({ type: 'array', items: { type: 'string' } })
    expect(body.properties.codeChallengeMethod).toMatchObject({ const: 'S256' })
    expect(body.properties.codeChallenge).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' })
    const check = ajv.compile(body)
    const sample = {
      client: 'raycast',
      redirectUri: 'raycast://oauth',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
      scopes: ['saved-items:read'],
      label: 'Raycast',
    }
    expect([
      check(sample),
      check({ ...sample, deviceHint: null }),
      check({ ...sample, deviceHint: 'Mac' }),
      check({ ...sample, client: 'anything' }),
      check({ ...sample, codeChallengeMethod: 'plain' }),
      check({ ...sample, codeChallenge: 'short' }),
      check({ ...sample, extra: 1 }),
      check({ ...sample, scopes: 'saved-items:read' }),
      check({ ...sample, label: undefined }),
    ]).toEqual([true, true, true, true, false, false, false, false, false])

    expect(jsonSchemaOf(op.responses['200'])).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['code'],
      properties: { code: { type: 'string', description: expect.any(String) } },
    })
    expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['ConnectError', 'ValidationError'])
    expect(errorTags(jsonSchemaOf(op.responses['401']))).toEqual(['Unauthorized'])
    expect(Object.keys(deref(op.responses['401'].headers))).toEqual(['WWW-Authenticate'])
    expect(errorTags(jsonSchemaOf(op.responses['429']))).toEqual(['RateLimitExceeded'])
    expect(Object.keys(op.responses['429'].headers)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']),
    )
    expect(errorTags(jsonSchemaOf(op.responses['500']))).toEqual(['InternalError'])
    // Any credential will do, so no scope can be missing.
    expect(op.responses['403']).toBeUndefined()
    for (const status of ['409', '413', '415', '422']) expect(op.responses[status]).toBeDefined()
  })

  test('POST /connect/exchange: no credential, the exact body, { apiKey, scopes, label }, ConnectError or ValidationError, 429 per IP', () => {
    const op = doc.paths['/connect/exchange'].post
    expect(op.security).toEqual([])
    const body = deref(op.requestBody.content['application/json'].schema)
    expect(body).toMatchObject({ type: 'object', additionalProperties: false })
    expect(Object.keys(body.properties).sort()).toEqual(['client', 'code', 'codeVerifier'])
    expect([...body.required].sort()).toEqual(['client', 'code', 'codeVerifier'])
    for (const field of ['client', 'code', 'codeVerifier']) expect(body.properties[field].type).toBe('string')

    const answer = jsonSchemaOf(op.responses['200'])
    expect(answer.additionalProperties).toBe(false)
    expect([...answer.required].sort()).toEqual(['apiKey', 'label', 'scopes'])
    expect(answer.properties.label).toEqual({ type: 'string' })
    expect(answer.properties.scopes).toEqual({ type: 'array', items: deref(doc.components.schemas.Scope) })
    const check = ajv.compile(answer)
    expect([
      check({ apiKey: 'rlk_x', scopes: ['saved-items:read'], label: 'L' }),
      check({ apiKey: 'rlk_x', scopes: ['offline_access'], label: 'L' }),
      check({ apiKey: 'rlk_x', scopes: [], label: 'L', extra: 1 }),
    ]).toEqual([true, false, false])

    expect(errorTags(jsonSchemaOf(op.responses['400']))).toEqual(['ConnectError', 'ValidationError'])
    expect(errorTags(jsonSchemaOf(op.responses['429']))).toEqual(['RateLimitExceeded'])
    expect(op.responses['401']).toBeUndefined()
    expect(op.responses['403']).toBeUndefined()
    // Limited per IP: every answer carries RateLimit-*, the 429 also Retry-After.
    for (const response of Object.values<any>(op.responses)) {
      expect(Object.keys(response.headers ?? {})).toEqual(
        expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      )
    }
    expect(Object.keys(op.responses['429'].headers)).toContain('Retry-After')
    // Public: no Idempotency-Key (nothing to scope it to).
    expect(op.parameters).toBeUndefined()
  })
})
