// Readlater inside a Hono app, under /readlater, on Bun or Deno (docs/embedding.md#examples).
// Run: bun examples/hono.ts   or   deno run -A examples/hono.ts
import { Hono } from 'hono'
import { createReadlater, type ConnectionInfo } from 'readlater'

declare const Deno: { serve(options: { port: number }, handler: (request: Request, info: unknown) => unknown): unknown }
const env = (name: string): string | undefined => globalThis.process?.env[name]
const port = Number(env('PORT') ?? 3000)
const readlater = await createReadlater({
  baseUrl: `http://localhost:${port}/readlater`,
  databaseUrl: env('DATABASE_URL') ?? 'file:./data/readlater.db',
})

const app = new Hono()
app.get('/', (c) => c.text('My app. Readlater is at /readlater'))
// Hono hands the runtime's server (Bun) or connection info (Deno) over as `c.env`: per-IP limits see the client.
const toReadlater = (c: { req: { raw: Request }; env: unknown }) => readlater.fetch(c.req.raw, c.env as ConnectionInfo)
app.all('/readlater', toReadlater)
app.all('/readlater/*', toReadlater)
// OAuth discovery documents live at the host's root, the prefix appended (RFC 8414, RFC 9728).
app.all('/.well-known/*', toReadlater)

if (typeof Bun !== 'undefined') Bun.serve({ port, fetch: app.fetch })
else Deno.serve({ port }, app.fetch)
console.log(`listening on http://localhost:${port}`)
