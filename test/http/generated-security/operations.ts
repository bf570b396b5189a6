/** One operation of our OpenAPI document, as the generated security test needs it. */
export interface Operation {
  method: string
  /** The path template, e.g. `/v1/folders/{id}`. */
  path: string
  /** No credential needed (no security requirement). */
  public: boolean
  /** The scopes the operation needs (empty for any credential or public). */
  scopes: string[]
  /** It takes a JSON request body. */
  jsonBody: boolean
  /** It writes (so it takes an Idempotency-Key). */
  mutating: boolean
}

interface OpenApiOperation {
  security?: Record<string, string[]>[]
  'x-required-scopes'?: string[]
  requestBody?: { content?: Record<string, { schema?: { format?: string } }> }
}

/** Every operation under `paths`, in document order. */
export function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  const operations: Operation[] = []
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const security = operation.security ?? []
      operations.push({
        method: method.toUpperCase(),
        path,
        public: security.length === 0,
        scopes: operation['x-required-scopes'] ?? [],
        // A file upload that may be a JSON file (an import) is a file, not a JSON body: binary schema.
        jsonBody:
          Boolean(operation.requestBody?.content?.['application/json']) &&
          operation.requestBody?.content?.['application/json']?.schema?.format !== 'binary',
        mutating: method !== 'get',
      })
    }
  }
  return operations
}
