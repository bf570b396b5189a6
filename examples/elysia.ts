// Readlater inside an Elysia app on Bun, under /readlater (docs/embedding.md#examples).
// Run: bun examples/elysia.ts   (PORT and DATABASE_URL optional)
import { Elysia } from 'elysia'
import { createReadlater } from 'readlater'

const port = Number(process.env.PORT ?? 3000)
const readlater = await createReadlater({
  baseUrl: `http://localhost:${port}/readlater`,
  databaseUrl: process.env.DATABASE_URL ?? 'file:./data/readlater.db',
})

// Bun's server goes along with each request, so per-IP limits see the client.
const toReadlater = ({ request, server }: { request: Request; server: Bun.Server<unknown> | null }) =>
  readlater.fetch(request, server ?? undefined)

new Elysia()
  .get('/', () => 'My app. Readlater is at /readlater')
  .all('/readlater', toReadlater)
  .all('/readlater/*', toReadlater)
  // OAuth discovery documents live at the host's root, the prefix appended (RFC 8414, RFC 9728).
  .all('/.well-known/*', toReadlater)
  .listen(port)

console.log(`listening on http://localhost:${port}`)
process.on('SIGTERM', async () => {
  await readlater.close()
  process.exit(0)
})
