/**
 * What a host hands the fetch handler beside the request, so per-IP limits can see the client: Bun's
 * `Server` (what `Bun.serve({ fetch })` passes), Deno's handler info (what `Deno.serve(fetch)` passes), or
 * the address itself from any other host. A bare string or anything else does not compile, so a host
 * cannot hand over the wrong thing by accident (docs/operations.md#embedding).
 */
export type ConnectionInfo =
  | { requestIP(request: Request): { address: string } | null }
  | { remoteAddr: { hostname?: string } }
  | { clientIp: string | null }

export type RequestHandler = (request: Request, connection?: ConnectionInfo) => Promise<Response>

/**
 * The same handler for a host that takes a Response or a promise of one (Bun.serve, Deno.serve): a request
 * it can answer without waiting (the list on an embedded file) gets its Response at once, with no promise
 * turn (docs/benchmarks.md#answered-at-once).
 */
export type ServingHandler = (request: Request, connection?: ConnectionInfo) => Response | Promise<Response>

/** The socket peer's address from whatever the host passed; null when it passed nothing usable. */
export function socketAddressOf(request: Request, connection: ConnectionInfo | undefined): string | null {
  if (!connection) return null
  if ('clientIp' in connection) return connection.clientIp
  if ('requestIP' in connection && typeof connection.requestIP === 'function')
    return unmapIpv4(connection.requestIP(request)?.address ?? null)
  if ('remoteAddr' in connection) return unmapIpv4(connection.remoteAddr?.hostname ?? null)
  return null
}

/** A dual-stack socket reports IPv4 peers as `::ffff:a.b.c.d`; one client must have one bucket either way. */
function unmapIpv4(address: string | null): string | null {
  return address && /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address
}
