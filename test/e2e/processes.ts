import { createServer as createNetServer } from 'node:net'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// Real processes for end-to-end tests: `bun server.ts` servers and CLI runs, over real HTTP.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const BUN = process.versions.bun ? process.execPath : resolve(ROOT, 'node_modules/.bin/bun')

/** A port that was free a moment ago: bind port 0, read what the OS chose, release it. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createNetServer()
    probe.once('error', fail)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => done(port))
    })
  })
}

/** The environment of a child: ours without anything that would change the service's configuration. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue
    if (
      /^(PORT|HOST|BASE_URL|APP_URL|DATABASE_URL|DATABASE_AUTH_TOKEN|RATE_LIMIT_.*|IP_RATE_LIMIT_MAX|SIGNUP|ENRICH.*|WEBHOOKS|ENCRYPTION_KEY|LOG_LEVEL)$/.test(
        name,
      )
    )
      continue
    env[name] = value
  }
  return { ...env, ENRICHMENT: 'off', ...extra }
}

/** Collects a stream's text as it arrives, split into lines. */
function collectLines(stream: ReadableStream<Uint8Array>, lines: string[]): Promise<void> {
  const decoder = new TextDecoder()
  let partial = ''
  return (async () => {
    for await (const chunk of stream) {
      partial += decoder.decode(chunk, { stream: true })
      const parts = partial.split('\n')
      partial = parts.pop()!
      lines.push(...parts)
    }
    if (partial) lines.push(partial)
  })()
}

export interface ServerProcess {
  port: number
  /** The operating system's process id. */
  pid: number
  /** Where to send requests (the loopback address the server binds). */
  url: string
  /** BASE_URL as the server sees it (http://localhost:PORT). */
  base: string
  stdout: string[]
  stderr: string[]
  stop(): Promise<void>
  /** Kills the process with SIGKILL, as a crash or an OOM kill would: no shutdown code runs. */
  crash(): Promise<void>
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

export const DENO = resolve(ROOT, 'node_modules/.bin/deno')
/** `server.ts` under Deno (type-checking is Bun's job in `npm test`; Deno only runs it). */
export const DENO_SERVER = [DENO, 'run', '--allow-all', '--no-check', 'server.ts']

/**
 * Starts `bun server.ts` (or another command) and waits until /health answers. On a free port, or on
 * `env.PORT` (to start a server again where a stopped one was).
 */
export async function startServer(
  env: Record<string, string>,
  command: string[] = [BUN, 'server.ts'],
): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), LOG_LEVEL: 'info', ...env }),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const stdout: string[] = []
  const stderr: string[] = []
  const reading = Promise.all([collectLines(proc.stdout, stdout), collectLines(proc.stderr, stderr)])
  const server: ServerProcess = {
    port,
    pid: proc.pid,
    url: `http://127.0.0.1:${port}`,
    base: `http://localhost:${port}`,
    stdout,
    stderr,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM')
        const exited = await Promise.race([proc.exited.then(() => true), sleep(3000).then(() => false)])
        if (!exited) proc.kill('SIGKILL')
      }
      await proc.exited
      await reading
    },
    async crash() {
      proc.kill('SIGKILL')
      await proc.exited
      await reading
    },
  }
  const deadline = Date.now() + 25_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${stderr.join('\n')}`)
    try {
      const response = await fetch(`${server.url}/health`)
      if (response.status === 200) return server
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop()
      throw new Error(`server did not answer /health within 25 s: ${stderr.join('\n')}`)
    }
    await sleep(50)
  }
}

/** Runs `bun server.ts <args>` to completion. */
export async function runServerCommand(
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const proc = Bun.spawn([BUN, 'server.ts', ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
  })
  const stdout: string[] = []
  const stderr: string[] = []
  await Promise.all([collectLines(proc.stdout, stdout), collectLines(proc.stderr, stderr)])
  const code = await proc.exited
  return { code, stdout, stderr }
}

/** Waits until `lines` has a line satisfying `found` (log lines arrive a little after the response). */
export async function waitForLine(lines: string[], found: (line: string) => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!lines.some(found)) {
    if (Date.now() > deadline) throw new Error('expected log line did not appear')
    await sleep(20)
  }
}

export interface HttpReply {
  status: number
  headers: Headers
  body: any
  text: string
}

/** One JSON request over real HTTP. */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpReply> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  return { status: response.status, headers: response.headers, body, text }
}
