/** Child processes for the benchmark: spawned servers that are always killed, even when the run fails. */
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const children = new Set<Subprocess>()

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Where `server.ts` is run from: this checkout, or another one named by BENCH_SERVER_ROOT (an older commit's
 * worktree), so one bench measures before and after with the same load generator and data.
 */
export const SERVER = `${(process.env.BENCH_SERVER_ROOT ?? ROOT).replace(/\/?$/, '/')}server.ts`

/** A TCP port that was free a moment ago (the OS picks it). */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  if (!port) throw new Error('could not find a free port')
  return port
}

/** Keeps the last few KiB of a child's output, so a failure can show it without the pipe ever filling. */
function drain(stream: ReadableStream<Uint8Array>, sink: { text: string }): void {
  const decoder = new TextDecoder()
  void (async () => {
    for await (const chunk of stream) sink.text = (sink.text + decoder.decode(chunk, { stream: true })).slice(-4096)
  })().catch(() => {})
}

export interface Server {
  name: string
  url: string
  process: Subprocess
  output: { text: string }
}

/**
 * With `taskset` and two or more cores, servers run on CPU 0 and this process (the load generator) on
 * CPU 1, so the generator never steals the server's core. Returns what was done, for the report.
 */
export function pinCores(): string {
  const taskset = Bun.which('taskset')
  if (!taskset || navigator.hardwareConcurrency < 2) return 'not pinned (needs taskset and 2 cores)'
  const pinned = Bun.spawnSync([taskset, '-cp', '1', String(process.pid)], { stdout: 'ignore', stderr: 'pipe' })
  if (pinned.exitCode !== 0) return `not pinned (taskset: ${pinned.stderr.toString().trim()})`
  serverPrefix = [taskset, '-c', '0']
  loadPrefix = [taskset, '-c', '1']
  return 'pinned with taskset: servers on CPU 0, load generator (this process, or wrk) on CPU 1'
}
let serverPrefix: string[] = []
let loadPrefix: string[] = []

/** What a native load generator (wrk) runs under: pinned to the load generator's core when pinCores could. */
export const generatorPrefix = (): string[] => loadPrefix

export async function startServer(name: string, args: string[], env: Record<string, string>): Promise<Server> {
  const port = freePort()
  const child = Bun.spawn([...serverPrefix, process.execPath, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  children.add(child)
  void child.exited.then(() => children.delete(child))
  const output = { text: '' }
  drain(child.stdout, output)
  drain(child.stderr, output)
  const server = { name, url: `http://127.0.0.1:${port}`, process: child, output }
  await waitUntilUp(server)
  return server
}

async function waitUntilUp(server: Server): Promise<void> {
  const deadline = performance.now() + 20_000
  while (performance.now() < deadline) {
    if (server.process.exitCode !== null)
      throw new Error(`${server.name} exited with code ${server.process.exitCode}:\n${server.output.text}`)
    try {
      const response = await fetch(`${server.url}/health`)
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await Bun.sleep(50)
  }
  throw new Error(`${server.name} did not answer /health within 20 s:\n${server.output.text}`)
}

/** Runs a command to completion; returns its stdout, or throws with its output on a non-zero exit. */
export async function run(args: string[], env: Record<string, string>): Promise<string> {
  const child = Bun.spawn([process.execPath, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  children.add(child)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  children.delete(child)
  if (code !== 0) throw new Error(`\`bun ${args.join(' ')}\` exited with code ${code}:\n${stdout}${stderr}`)
  return stdout
}

/** SIGTERM every child still running, then SIGKILL whatever has not exited 2 s later. */
export async function stopAll(): Promise<void> {
  const running = [...children]
  for (const child of running) child.kill('SIGTERM')
  await Promise.race([Promise.all(running.map((c) => c.exited)), Bun.sleep(2000)])
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
}

// Last resort: never leave a server behind, whatever ends this process.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

/** A server's environment for a bench: this database, no rate limits, no logs, no enrichment; then `extra`. */
export function benchEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_MAX: '100000000',
    IP_RATE_LIMIT_MAX: '100000000',
    LOG_LEVEL: 'silent',
    ENRICHMENT: 'off',
    ...extra,
  }
}

/** The password of every bench person (the web bench signs in with it). */
export const BENCH_PASSWORD = 'bench-password-123'

const lastLine = (stdout: string): string => stdout.trim().split('\n').at(-1)!.trim()

/** A person made with the admin CLI, as an operator would; returns their id (the CLI's last line). */
export async function createPerson(env: Record<string, string>, email: string): Promise<string> {
  return lastLine(await run([SERVER, 'user', 'create', '--email', email, '--password', BENCH_PASSWORD], env))
}

/** A key of the person's with these scopes, made with the admin CLI (printed on its last line). */
export async function createKey(env: Record<string, string>, email: string, scopes: string[]): Promise<string> {
  const key = lastLine(
    await run([SERVER, 'key', 'create', '--email', email, '--scopes', scopes.join(','), '--label', 'bench'], env),
  )
  if (!/^rlk_[A-Za-z0-9_-]{43}$/.test(key))
    throw new Error(`key create printed "${key}" as its last line, not an API key`)
  return key
}

/** A person made with the admin CLI and a key of theirs with these scopes: the person's id and the key. */
export async function createPersonWithKey(
  env: Record<string, string>,
  email: string,
  scopes: string[],
): Promise<{ userId: string; key: string }> {
  const userId = await createPerson(env, email)
  return { userId, key: await createKey(env, email, scopes) }
}

/** A person made with the admin CLI and a key of theirs with these scopes: the key. */
export async function personWithKey(env: Record<string, string>, email: string, scopes: string[]): Promise<string> {
  return (await createPersonWithKey(env, email, scopes)).key
}

/** A size or count from the environment (`name`), or `fallback`; anything but a positive number is refused. */
export function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

/** The resident set of a process now (VmRSS), from /proc (Linux); null elsewhere. */
export function rssBytes(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) * 1024 : null
  } catch {
    return null
  }
}

/**
 * A process's peak resident set since it started (VmHWM), in MiB, from /proc (Linux): every moment counts,
 * where sampling would miss a spike between two samples.
 */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024
}

/**
 * Runs a bench's `main` and exits with its code, calling `cleanUp` (stop the servers, remove the work
 * directory) however it ends: returned, thrown, or interrupted by SIGINT or SIGTERM (exit 130).
 */
export async function runBench(main: () => Promise<number>, cleanUp: () => Promise<void>): Promise<never> {
  let interrupted = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return
      interrupted = true
      console.error(`bench interrupted (${signal}): stopping servers`)
      void cleanUp().finally(() => process.exit(130))
    })
  }
  let code = 1
  try {
    code = await main()
  } catch (error) {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  } finally {
    await cleanUp()
  }
  process.exit(code)
}
