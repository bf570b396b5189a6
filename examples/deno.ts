// Readlater as the whole server, with Deno.serve (docs/embedding.md#examples).
// Run: deno run -A examples/deno.ts   (PORT and DATABASE_URL optional)
import { createReadlater } from 'readlater'

declare const Deno: {
  env: { get(name: string): string | undefined }
  serve(
    options: { port: number },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): unknown
  addSignalListener(signal: 'SIGTERM', handler: () => void): void
  exit(code: number): never
}

const port = Number(Deno.env.get('PORT') ?? 3000)
const readlater = await createReadlater({
  baseUrl: `http://localhost:${port}`,
  databaseUrl: Deno.env.get('DATABASE_URL') ?? 'file:./data/readlater.db',
})
// Deno's handler info carries the client's address: per-IP limits see it.
Deno.serve({ port }, readlater.fetch)
console.log(`listening on http://localhost:${port}`)
Deno.addSignalListener('SIGTERM', async () => {
  await readlater.close()
  Deno.exit(0)
})
