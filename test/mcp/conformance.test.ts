import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { signedIn, type Browserless } from '../oauth/oauth-helpers.ts'
import { allowOverHttp, freePort } from './mcp-helpers.ts'

// The MCP project's own conformance suite (@modelcontextprotocol/conformance) against our authorization
// server: its two authorization-server scenarios, metadata and a full authorization-code grant with PKCE
// and the resource indicator of /mcp. The tool prints the authorization URL and waits on a loopback
// callback; the test plays the person over HTTP (session cookie, "Allow") and delivers the redirect.

const TOOL = join(import.meta.dir, '../../node_modules/@modelcontextprotocol/conformance/dist/index.js')

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
  details?: Record<string, any>
}

let live: LiveServer
let person: Browserless
let port: number
let clientId: string
let outputDir: string
let child: Subprocess<'ignore', 'pipe', 'pipe'> | null = null

beforeAll(async () => {
  live = await startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' } })
  person = await signedIn(live.harness)
  port = freePort()
  const registered = await fetch(`${live.url}/api/auth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: 'none',
    }),
  })
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`)
  clientId = ((await registered.json()) as { client_id: string }).client_id
  outputDir = await mkdtemp(join(tmpdir(), 'readlater-conformance-'))
})

afterAll(async () => {
  if (child && child.exitCode === null) child.kill()
  await live?.stop()
  if (outputDir) await rm(outputDir, { recursive: true, force: true })
})

/** Reads a child's stdout as it comes, so the test can wait for a line and still have everything at the end. */
function collect(stream: ReadableStream<Uint8Array>): {
  text: () => string
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>
} {
  let text = ''
  const waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = []
  const settle = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(text)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  }
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true })
      settle()
    }
  })()
  return {
    text: () => text,
    waitFor: (pattern) =>
      new Promise((resolve) => {
        waiters.push({ pattern, resolve })
        settle()
      }),
  }
}

async function checksIn(dir: string): Promise<Record<string, Check[]>> {
  const scenarios: Record<string, Check[]> = {}
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith('checks.json')) continue
    const scenario = /authorization-server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1] ?? entry
    scenarios[scenario] = JSON.parse(await readFile(join(dir, entry), 'utf8')) as Check[]
  }
  return scenarios
}

test('the conformance suite passes both authorization-server scenarios, every check SUCCESS', async () => {
  // The suite uses Node ≥ 22 APIs and the machine has Node 20: run it with Bun (this test's own runtime).
  child = Bun.spawn(
    [
      process.execPath,
      TOOL,
      'authorization',
      '--url',
      `${live.url}/api/auth`,
      '--client-id',
      clientId,
      '--resource',
      `${live.url}/mcp`,
      '--port',
      String(port),
      '--output-dir',
      outputDir,
    ],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1' } },
  )
  const stdout = collect(child.stdout)
  const stderr = collect(child.stderr)

  // Without --scenario it runs both; the second prints the URL to open and waits for the callback.
  // A tool that stops before that fails the test with its output instead of hanging until the timeout.
  const exitedEarly = child.exited.then((code) => {
    throw new Error(`conformance exited with ${code} before asking for consent:\n${stdout.text()}\n${stderr.text()}`)
  })
  exitedEarly.catch(() => {}) // only the races below care; a normal exit later is not an error
  const [authorizationUrl] = await Promise.race([
    stdout.waitFor(/^http:\/\/\S+\/api\/auth\/oauth2\/authorize\?\S+$/m),
    exitedEarly,
  ])
  await Promise.race([
    stdout.waitFor(new RegExp(`Callback server started: http://127\\.0\\.0\\.1:${port}`)),
    exitedEarly,
  ])
  const requested = new URL(authorizationUrl)
  expect(requested.searchParams.get('client_id')).toBe(clientId)
  expect(requested.searchParams.get('resource')).toBe(`${live.url}/mcp`)
  expect(requested.searchParams.get('code_challenge_method')).toBe('S256')

  const consent = await allowOverHttp(live.url, person, requested)
  expect(consent.decisionStatus).toBe(303)
  expect(consent.location.origin).toBe(`http://127.0.0.1:${port}`)
  const delivered = await fetch(consent.location)
  expect(delivered.status).toBe(200)
  await delivered.body?.cancel()

  const exitCode = await child.exited
  const output = stdout.text()
  console.log(output.slice(output.indexOf('=== SUMMARY ===')).trim())
  if (exitCode !== 0) console.log(stderr.text())
  expect(exitCode).toBe(0)
  expect(output).toContain('Total: 3 passed, 0 failed')

  const scenarios = await checksIn(outputDir)
  expect(Object.keys(scenarios).sort()).toEqual(['authorization-code-grant', 'authorization-server-metadata-endpoint'])
  const statuses = Object.values(scenarios)
    .flat()
    .map((check) => [check.id, check.status])
  console.log(statuses.map(([id, status]) => `${status} ${id}`).join('\n'))
  // Every check passes, Client ID Metadata Document support included: no warnings either.
  expect(statuses.sort()).toEqual([
    ['authorization-code-grant', 'SUCCESS'],
    ['authorization-server-metadata', 'SUCCESS'],
    ['authorization-server-metadata-cimd', 'SUCCESS'],
  ])
  const grant = scenarios['authorization-code-grant']![0]!
  expect(new URL(grant.details!.authorizationResponseUrl).searchParams.get('iss')).toBe(`${live.url}/api/auth`)
  expect(grant.details!.body).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) })
}, 60_000)
