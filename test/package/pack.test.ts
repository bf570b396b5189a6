import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUN, DENO, freePort, ROOT, runServerCommand } from '../e2e/processes.ts'

// docs/embedding.md#the-package: `npm pack`, installed into an empty project, and every example of
// examples/ run from that install (never from the source tree): Elysia and Hono on Bun, Hono and Deno.serve
// on Deno, node:http and the typed client on Node.

const dir = mkdtempSync(join(tmpdir(), 'readlater-pack-'))
const app = join(dir, 'app')
const database = `file:${join(dir, 'examples.db')}`
let tarball = ''
let files: string[] = []
let key = ''

const run = async (cmd: string[], cwd: string) => {
  const proc = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NODE_ENV: '' } })
  const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()]
  const code = await proc.exited
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${(out + err).slice(-3000)}`)
  return out
}

beforeAll(async () => {
  // The browser extension's build sits in dist/ too (docs/extension.md#build), and must not be packed.
  await run(['node', 'scripts/build-extension.mjs'], ROOT)
  // prepack builds dist/ first.
  await run(['npm', 'pack', '--pack-destination', dir], ROOT)
  tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'))!
  files = (await run(['tar', '-tzf', join(dir, tarball)], dir)).split('\n').filter(Boolean)
  cpSync(join(ROOT, 'examples'), join(app, 'examples'), { recursive: true })
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { readlater: `file:../${tarball}`, hono: '4.13.19' },
    }),
  )
  await run(['npm', 'install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], app)
  // A person and a key in the examples' database, made with the admin CLI.
  const env = { DATABASE_URL: database }
  expect(
    (await runServerCommand(['user', 'create', '--email', 'ex@example.com', '--password', 'a long password'], env))
      .code,
  ).toBe(0)
  key = (
    await runServerCommand(
      [
        'key',
        'create',
        '--email',
        'ex@example.com',
        '--scopes',
        'saved-items:capture,saved-items:read',
        '--label',
        'ex',
      ],
      env,
    )
  ).stdout.at(-1)!
}, 180_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs an example from the installed package until `probe` has checked it, then stops it. */
async function example(cmd: string[], probe: (base: string) => Promise<void>, extraEnv: Record<string, string> = {}) {
  const port = await freePort()
  const proc = Bun.spawn(cmd, {
    cwd: app,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, PORT: String(port), DATABASE_URL: database, LOG_LEVEL: 'warn', ...extraEnv },
  })
  const output: string[] = []
  const reading = (async () => {
    for await (const chunk of proc.stdout) output.push(new TextDecoder().decode(chunk))
  })()
  try {
    const base = `http://localhost:${port}`
    const deadline = Date.now() + 60_000
    while (!output.join('').includes('listening on')) {
      if (Date.now() > deadline || proc.exitCode !== null)
        throw new Error(`${cmd.join(' ')} did not start: ${await new Response(proc.stderr).text()}`)
      await Bun.sleep(100)
    }
    await probe(base)
    return output
  } finally {
    proc.kill()
    await proc.exited
    await reading
  }
}

const json = async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init)
  return { status: response.status, body: await response.json() }
}

/** What each mounted example must show: the API under /readlater, and OAuth discovery with the prefix. */
async function checkMounted(base: string) {
  expect(await json(`${base}/readlater/health`)).toEqual({ status: 200, body: { ok: true } })
  const metadata = await json(`${base}/.well-known/oauth-authorization-server/readlater/api/auth`)
  expect(metadata.body.issuer).toBe(`${base}/readlater/api/auth`)
  const resource = await json(`${base}/.well-known/oauth-protected-resource/readlater/mcp`)
  expect(resource.body.resource).toBe(`${base}/readlater/mcp`)
  const captured = await json(`${base}/readlater/v1/captures`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `https://example.com/${crypto.randomUUID()}` }),
  })
  expect(captured.status).toBe(201)
  expect((await fetch(`${base}/readlater/v1/saved-items`)).status).toBe(401)
  expect(await (await fetch(`${base}/`)).text()).toBe('My app. Readlater is at /readlater')
}

describe('the packed package', () => {
  test('holds dist (JavaScript, declarations, migrations, assets) and nothing from test/ or bench/', () => {
    for (const file of [
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/core/index.js',
      'package/dist/client/index.js',
      'package/dist/client/index.d.ts',
      'package/dist/core/mcp/index.js',
      'package/dist/adapters/storage/migrations/0012_webhooks.sql',
      'package/dist/adapters/storage/migrations/meta/_journal.json',
      'package/dist/adapters/http/web/assets/queue.js',
      'package/dist/adapters/http/web/assets/reader.js',
      'package/dist/adapters/http/web/assets/styles.css',
      'package/dist/adapters/http/web/assets/reader.css',
      'package/dist/adapters/http/web/assets/icon.svg',
      'package/CHANGELOG.md',
      'package/README.md',
    ])
      expect(files).toContain(file)
    expect(files.filter((file) => /^package\/(test|bench|examples)\//.test(file) || file.endsWith('.test.js'))).toEqual(
      [],
    )
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((file) => file.startsWith('package/dist/extension'))).toEqual([])
  })

  test('its types: each export resolves to declarations a strict TypeScript consumer compiles against', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { createReadlater, ConfigError, type Readlater, type ReadlaterOptions } from 'readlater'
import { normalizeUrl, WEBHOOK_EVENTS, type SavedItem } from 'readlater/core'
import { createClient, ReadlaterError, type Webhook } from 'readlater/client'
import { TOOLS } from 'readlater/mcp'

const options: ReadlaterOptions = { baseUrl: 'https://read.example.com', signup: 'closed', rateLimitMax: 100 }
export const make = (): Promise<Readlater> => createReadlater(options)
export const host: string = normalizeUrl('https://www.example.com/').host
export const events: readonly string[] = WEBHOOK_EVENTS
export const tools: number = TOOLS.length
export async function use(): Promise<string | null | undefined> {
  const client = createClient({ baseUrl: 'https://read.example.com', token: 'rlk_x' })
  const { savedItem } = await client.capture({ url: 'https://example.com/' })
  const item: SavedItem | null = null
  const hooks: Webhook[] = await client.webhooks.list()
  void [item, hooks, ConfigError, ReadlaterError]
  return savedItem.title
}
// @ts-expect-error: an option that does not exist
export const wrong: ReadlaterOptions = { baseURL: 'x' }
`,
    )
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
          skipLibCheck: true,
        },
        files: ['consumer.ts'],
      }),
    )
    await run([join(ROOT, 'node_modules/.bin/tsc'), '-p', 'tsconfig.json'], app)
  }, 60_000)

  test('Elysia on Bun', async () => {
    await example([BUN, 'examples/elysia.ts'], checkMounted)
  }, 90_000)

  test('Hono on Bun', async () => {
    await example([BUN, 'examples/hono.ts'], checkMounted)
  }, 90_000)

  test('Hono on Deno', async () => {
    await example([DENO, 'run', '-A', 'examples/hono.ts'], checkMounted)
  }, 90_000)

  test('Deno.serve on Deno', async () => {
    await example([DENO, 'run', '-A', 'examples/deno.ts'], async (base) => {
      expect(await json(`${base}/health`)).toEqual({ status: 200, body: { ok: true } })
      const list = await json(`${base}/v1/saved-items`, { headers: { authorization: `Bearer ${key}` } })
      expect(list.status).toBe(200)
      expect(Array.isArray(list.body.savedItems)).toBe(true)
    })
  }, 90_000)

  test('node:http and the typed client on Node', async () => {
    const output = await example(
      ['node', 'examples/node.mjs'],
      async (base) => {
        expect(await json(`${base}/health`)).toEqual({ status: 200, body: { ok: true } })
        // The script's client part captures a page: wait until the service has it.
        const deadline = Date.now() + 20_000
        for (;;) {
          const list = await json(`${base}/v1/saved-items`, { headers: { authorization: `Bearer ${key}` } })
          const urls = list.body.savedItems.map((item: { normalizedUrl: string }) => item.normalizedUrl)
          if (urls.includes('https://example.com/a-long-read') || Date.now() > deadline) break
          await Bun.sleep(100)
        }
        await Bun.sleep(300)
      },
      { READLATER_KEY: key },
    )
    const text = output.join('')
    expect(text).toContain('created: https://example.com/a-long-read')
    expect(text).toContain('queued: https://example.com/a-long-read')
  }, 90_000)
})
