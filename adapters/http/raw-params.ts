/**
 * A path segment that is not valid percent-encoding (`/v1/saved-items/%ZZ`) names nothing that exists.
 * Elysia hands such a parameter to the route as null, which its schema refused as a 400 ValidationError
 * ("params.id: Expected string"). It is kept as it came instead, so the route answers as for any unknown id:
 * the typed 404 naming it, and 204 for an item's DELETE, which is idempotent (docs/api.md#errors).
 */
export function keepUndecodableParams(context: {
  params?: Record<string, unknown>
  route: string
  path: string
}): void {
  const params = context.params
  if (!params) return
  let segments: string[] | null = null
  for (const name in params) {
    if (params[name] !== null) continue
    segments ??= context.path.split('/')
    const at = context.route.split('/').indexOf(`:${name}`)
    const raw = at < 0 ? undefined : segments[at]
    if (raw !== undefined) params[name] = raw
  }
}
