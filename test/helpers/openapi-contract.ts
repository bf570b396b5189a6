import Ajv2020 from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'

// Every response an HTTP test receives is checked against the service's own /openapi.json: the
// operation must exist, the status must be documented, and the body must match its schema.

interface MinimalServer {
  fetch(request: Request): Promise<Response>
}
interface Operation {
  template: RegExp
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>
}

const documents = new WeakMap<MinimalServer, Promise<{ operations: Map<string, Operation[]>; doc: any }>>()
const compiled = new WeakMap<object, ValidateFunction>()
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })

export function openApiDocument(server: MinimalServer): Promise<{ operations: Map<string, Operation[]>; doc: any }> {
  let found = documents.get(server)
  if (!found) {
    found = server.fetch(new Request('http://localhost:3000/openapi.json')).then(async (response) => {
      const doc = await response.json()
      const operations = new Map<string, Operation[]>()
      for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
        const template = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)
        for (const [method, operation] of Object.entries<any>(item)) {
          const list = operations.get(method.toUpperCase()) ?? []
          list.push({ template, responses: operation.responses ?? {} })
          operations.set(method.toUpperCase(), list)
        }
      }
      return { operations, doc }
    })
    documents.set(server, found)
  }
  return found
}

function resolveRefs(schema: unknown, doc: any): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(s, doc))
  if (schema && typeof schema === 'object') {
    const ref = (schema as { $ref?: string }).$ref
    if (ref?.startsWith('#/'))
      return resolveRefs(
        ref
          .slice(2)
          .split('/')
          .reduce((node: any, part) => node?.[part], doc),
        doc,
      )
    return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolveRefs(v, doc)]))
  }
  return schema
}

export async function checkResponseAgainstOpenApi(
  server: MinimalServer,
  method: string,
  pathWithQuery: string,
  reply: { status: number; body: unknown; text: string },
): Promise<void> {
  const path = pathWithQuery.split('?')[0]!
  const { operations, doc } = await openApiDocument(server)
  const operation = (operations.get(method.toUpperCase()) ?? []).find((op) => op.template.test(path))
  if (!operation) {
    if (reply.status === 404 && (reply.body as { _tag?: string })?._tag === 'RouteNotFoundError') return
    throw new Error(`OpenAPI: ${method} ${path} answered ${reply.status} but is not documented`)
  }
  const documented = operation.responses[String(reply.status)]
  if (!documented)
    throw new Error(
      `OpenAPI: ${method} ${path} answered ${reply.status}, which is not documented (documented: ${Object.keys(operation.responses).join(', ')})`,
    )
  const schema = documented.content?.['application/json']?.schema
  if (!schema) {
    // A download documents its media types as binary strings (an archived image): any bytes match.
    if (
      Object.values(documented.content ?? {}).some(
        (media) => (media.schema as { format?: string })?.format === 'binary',
      )
    )
      return
    if (reply.text !== '')
      throw new Error(
        `OpenAPI: ${method} ${path} ${reply.status} documents no body but sent ${reply.text.slice(0, 80)}`,
      )
    return
  }
  let validate = compiled.get(documented)
  if (!validate) {
    validate = ajv.compile(resolveRefs(schema, doc) as object)
    compiled.set(documented, validate)
  }
  if (!validate(reply.body)) {
    throw new Error(
      `OpenAPI: ${method} ${path} ${reply.status} body does not match: ${ajv.errorsText(validate.errors)}\n${reply.text.slice(0, 300)}`,
    )
  }
}
