import type { ServingHandler } from './connection.ts'

/** A listening HTTP server, whatever runtime started it. */
export interface Listener {
  url: string
  stop(): Promise<void>
}

declare const Deno:
  | {
      serve(
        options: { port: number; hostname: string; onListen?: () => void },
        handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
      ): { shutdown(): Promise<void>; addr: { hostname: string; port: number } }
    }
  | undefined

/**
 * Serves `fetch` with the runtime's native server: Bun.serve on Bun, Deno.serve on Deno.
 *
 * No transport limit on request bodies: every route caps what it reads itself (64 KiB, 5 MiB for a capture
 * with its page, 50 MiB for an import file), refusing a declared length over its cap before reading a byte
 * and a streamed body at the cap, each with its typed error (docs/api.md#limits). A transport limit would
 * answer a body past it with a bare 413, no typed body; a body a route never reads is drained as it
 * arrives, never held.
 */
export function serve(fetch: ServingHandler, options: { port: number; hostname: string }): Listener {
  if (typeof Bun !== 'undefined') {
    // Bun passes its Server, from which the handler reads the socket peer (behind a proxy: see TRUST_PROXY).
    const server = Bun.serve({
      port: options.port,
      hostname: options.hostname,
      fetch,
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    })
    return { url: `http://${server.hostname}:${server.port}`, stop: () => server.stop() }
  }
  if (typeof Deno !== 'undefined') {
    const server = Deno.serve({ port: options.port, hostname: options.hostname, onListen: () => {} }, fetch)
    return { url: `http://${server.addr.hostname}:${server.addr.port}`, stop: () => server.shutdown() }
  }
  throw new Error(
    'Serving needs Bun or Deno; on Node, serve createReadlater().fetch behind node:http (examples/node.mjs)',
  )
}
