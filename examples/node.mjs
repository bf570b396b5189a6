// Readlater on Node: the service from createReadlater behind node:http, and the typed client talking to it
// (docs/embedding.md#examples). Run: node examples/node.mjs   (PORT and DATABASE_URL optional; READLATER_KEY,
// an API key of that database, for the client part: `bun server.ts key create …`)
import { createServer } from 'node:http'
import { Readable } from 'node:stream'
import { createReadlater } from 'readlater'
import { createClient } from 'readlater/client'

const port = Number(process.env.PORT ?? 3000)
const readlater = await createReadlater({
  baseUrl: `http://localhost:${port}`,
  databaseUrl: process.env.DATABASE_URL ?? 'file:./data/readlater.db',
})

// node:http to a fetch handler: the request as a Request, the Response back, the client's address beside it.
const server = createServer(async (req, res) => {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]) =>
      value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => [name, v]),
    ),
    body: hasBody ? Readable.toWeb(req) : undefined,
    duplex: 'half',
  })
  const response = await readlater.fetch(request, { clientIp: req.socket.remoteAddress ?? null })
  const headers = [...response.headers].filter(([name]) => name !== 'set-cookie')
  for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie])
  res.writeHead(response.status, headers)
  if (response.body) for await (const chunk of response.body) res.write(chunk)
  res.end()
})
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
console.log(`listening on http://localhost:${port}`)

if (process.env.READLATER_KEY) {
  const client = createClient({ baseUrl: `http://localhost:${port}`, token: process.env.READLATER_KEY })
  const { captureResult, savedItem } = await client.capture({ url: 'https://example.com/a-long-read?utm_source=x' })
  console.log(`${captureResult}: ${savedItem.normalizedUrl}`)
  for await (const item of client.savedItems.all({ limit: 2 })) console.log(`queued: ${item.normalizedUrl}`)
}

process.on('SIGTERM', async () => {
  server.close()
  await readlater.close()
  process.exit(0)
})
