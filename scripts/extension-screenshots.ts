// `bun scripts/extension-screenshots.ts`: the screenshots of docs/extension.md (docs/images/extension-*.png):
// the options page connected, and the popup after a save with a folder and tags, each in a light and a
// dark colour scheme. The real extension build in Debian's Chromium against a real `bun server.ts` on a
// temporary database; nothing is left behind.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request, ROOT, runServerCommand, startServer } from '../test/e2e/processes.ts'
import { buildExtension } from '../test/extension/build.ts'
import { launchExtension } from '../test/extension/chromium.ts'

const dir = mkdtempSync(join(tmpdir(), 'readlater-screenshots-'))
const env = { DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, ENRICHMENT: 'on' }
const EMAIL = 'ada@example.com'
const ARTICLE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Designing a read-later queue that stays small</title></head>
<body><article><h1>Designing a read-later queue that stays small</h1>${'<p>A queue you never empty is a graveyard. This essay is about keeping a read-later list short: saving less, filing as you go, and letting go of what you will never read.</p>'.repeat(6)}</article></body></html>`

const fixtures = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: () => new Response(ARTICLE, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
})
const build = await buildExtension()
const server = await startServer(env)
let browser: Awaited<ReturnType<typeof launchExtension>> | null = null
try {
  await runServerCommand(['user', 'create', '--email', EMAIL, '--password', 'a long password'], env)
  const admin = (
    await runServerCommand(
      [
        'key',
        'create',
        '--email',
        EMAIL,
        '--label',
        'screenshots',
        '--scopes',
        'saved-items:capture,saved-items:read,saved-items:write,folders:read,folders:write,account:read',
      ],
      env,
    )
  ).stdout.at(-1)!
  const api = (method: string, path: string, body?: unknown) =>
    request(server.url, method, path, { token: admin, ...(body === undefined ? {} : { body }) })
  const folders: Record<string, string> = {}
  for (const name of ['Essays', 'Research', 'Tools to try'])
    folders[name] = (await api('POST', '/v1/folders', { name })).body.id

  browser = await launchExtension(build.chromium, { hostAccess: ['http://localhost/*'] })
  // Connected as the person (the connect flow itself is what test/extension tests): a key from /connect.
  const redirectUri = await browser.inWorker(() => (globalThis as any).chrome.identity.getRedirectURL() as string)
  const verifier = 'screenshots-verifier-screenshots-verifier-123'
  const challenge = new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
  const scopes = ['saved-items:capture', 'saved-items:read', 'saved-items:write', 'folders:read', 'account:read']
  const { code } = (
    await api('POST', '/connect/authorize', {
      client: 'chrome-extension',
      redirectUri,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
      scopes,
      label: 'Readlater for Chromium',
      deviceHint: 'Chromium on Linux',
    })
  ).body
  const { apiKey } = (
    await request(server.url, 'POST', '/connect/exchange', {
      body: { client: 'chrome-extension', code, codeVerifier: verifier },
    })
  ).body
  await browser.inWorker((connection) => (globalThis as any).chrome.storage.local.set({ connection }), {
    app: server.base,
    base: server.base,
    apiKey,
    label: 'Readlater for Chromium',
    scopes,
    email: EMAIL,
  })

  // A save from the toolbar button, then filed and tagged.
  const tab = await browser.context.newPage()
  await tab.goto(`http://127.0.0.1:${fixtures.port}/essays/small-queue`)
  await browser.pressButton(tab)
  const tabId = await browser.inWorker(async () => {
    for (;;) {
      const all = (await (globalThis as any).chrome.storage.session.get(null)) as Record<string, { state: string }>
      const done = Object.entries(all).find(([key, value]) => key.startsWith('tab:') && value.state === 'saved')
      if (done) return Number(done[0].slice(4))
      await new Promise((wait) => setTimeout(wait, 50))
    }
  })
  const url = `http://127.0.0.1:${fixtures.port}/essays/small-queue`
  const { id } = (await api('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`)).body
  await api('PUT', `/v1/saved-items/${id}/folder`, { folderId: folders.Essays })
  await api('PUT', `/v1/saved-items/${id}/tags`, { tags: ['design', 'tools'] })

  for (const scheme of ['light', 'dark'] as const) {
    const options = await browser.context.newPage()
    await options.emulateMedia({ colorScheme: scheme })
    await options.setViewportSize({ width: 760, height: 490 })
    await options.goto(`chrome-extension://${browser.id}/options.html`)
    await options.getByText(`Connected as ${EMAIL}`).waitFor()
    await options.screenshot({ path: join(ROOT, `docs/images/extension-options-${scheme}.png`) })
    await options.close()

    const popup = await browser.context.newPage()
    await popup.emulateMedia({ colorScheme: scheme })
    await popup.setViewportSize({ width: 352, height: 600 })
    await popup.goto(`chrome-extension://${browser.id}/popup.html?tab=${tabId}`)
    await popup.getByText('Designing a read-later queue that stays small').waitFor()
    await popup.getByLabel('Folder', { exact: true }).evaluate((select: HTMLSelectElement) => select.blur())
    await popup.locator('body').screenshot({ path: join(ROOT, `docs/images/extension-popup-${scheme}.png`) })
    await popup.close()
  }
} finally {
  await browser?.close()
  await server.stop()
  await fixtures.stop(true)
  build.remove()
  rmSync(dir, { recursive: true, force: true })
}
