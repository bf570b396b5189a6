/**
 * The baseline: a bare `Bun.serve` answering each path with a fixed JSON body (no routing framework, no
 * auth, no database). BODIES_FILE maps a path to { status, body }; run.ts fills it with a real response of
 * each scenario so both servers send the same bytes.
 */
export {}

const bodies = (await Bun.file(process.env.BODIES_FILE!).json()) as Record<string, { status: number; body: string }>
const fallback = { status: 200, body: '{"ok":true}' }
const headers = { 'content-type': 'application/json' }

Bun.serve({
  port: Number(process.env.PORT),
  hostname: '127.0.0.1',
  async fetch(request) {
    // Read the body as our server has to, so POST scenarios compare like with like.
    if (request.method !== 'GET') await request.arrayBuffer()
    const { status, body } = bodies[new URL(request.url).pathname] ?? fallback
    return new Response(body, { status, headers })
  },
})
