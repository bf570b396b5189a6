import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request, runServerCommand, type ServerProcess, startServer } from '../e2e/processes.ts'
import { buildExtension, type ExtensionBuild } from './build.ts'
import { FIREFOX, type FirefoxWithExtension, launchFirefox } from './firefox.ts'

// docs/extension.md#firefox: the Firefox build in Debian's Firefox ESR (headless, WebDriver BiDi) against a
// real `bun server.ts`: it installs, connects through its options page and the connect page, and the
// toolbar button saves the page as rendered. Skipped where no Firefox is installed (`FIREFOX_PATH`).

const dir = mkdtempSync(join(tmpdir(), 'readlater-extension-firefox-'))
const env = {
  DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
  ENRICHMENT: 'on',
  IP_RATE_LIMIT_MAX: '100000',
  RATE_LIMIT_MAX: '100000',
}
const EMAIL = 'fox@example.com'
const PASSWORD = 'correct horse battery'
const ARTICLE =
  'Written by the page’s script after load: Firefox sent the rendered article, not the wall the site served. '.repeat(4)

let build: ExtensionBuild
let server: ServerProcess
let firefox: FirefoxWithExtension
let fixtures: ReturnType<typeof Bun.serve>
let adminKey = ''
let options = ''

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))
async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== null && value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const maybe = FIREFOX ? describe : describe.skip

beforeAll(async () => {
  if (!FIREFOX) return
  fixtures = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      if (new URL(req.url).pathname === '/story.js')
        return new Response(
          `addEventListener('load', () => { document.title = 'The fox story'; document.body.innerHTML = '<article><h1>The fox story</h1><p>${ARTICLE}</p><p>${ARTICLE}</p></article>' })`,
          { headers: { 'content-type': 'text/javascript' } },
        )
      return new Response(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Members only</title></head><body><p>Sign in to read this article.</p><script src="/story.js"></script></body></html>',
        { headers: { 'content-type': 'text/html; charset=utf-8' } },
      )
    },
  })
  ;[build, server] = await Promise.all([buildExtension(), startServer(env)])
  expect((await runServerCommand(['user', 'create', '--email', EMAIL, '--password', PASSWORD], env)).code).toBe(0)
  adminKey = (
    await runServerCommand(
      ['key', 'create', '--email', EMAIL, '--label', 'checks', '--scopes', 'saved-items:read'],
      env,
    )
  ).stdout.at(-1)!
  firefox = await launchFirefox(build.firefox)
}, 60_000)

afterAll(async () => {
  await firefox?.close()
  await server?.stop()
  await fixtures?.stop(true)
  build?.remove()
  rmSync(dir, { recursive: true, force: true })
})

maybe('the extension in Firefox', () => {
  test('connects through the options page and the connect page', async () => {
    options = await firefox.openExtensionPage('options.html')
    await until('the options page', () => firefox.evaluate(options, 'document.body.dataset.ready === "true"'))
    expect(await firefox.evaluate(options, 'browser.identity.getRedirectURL()')).toMatch(
      /^https:\/\/[0-9a-f]{40}\.extensions\.allizom\.org\/$/,
    )
    await firefox.evaluate(
      options,
      `(() => { const input = document.getElementById('server'); input.value = ${JSON.stringify(server.base)}; input.dispatchEvent(new Event('input')) })()`,
    )
    // Whether the host is granted is learnt as the address is typed (the click must ask at once if not).
    await until('the host access check', () =>
      firefox.evaluate(options, 'document.getElementById("server").dataset.access'),
    )
    await firefox.click(options, '#connect')
    // identity.launchWebAuthFlow's window: sign in, then the consent.
    const flow = await firefox.contextWhere((url) => url.startsWith(`${server.base}/sign-in`))
    await firefox.evaluate(
      flow,
      `(() => { document.querySelector('input[type=email]').value = ${JSON.stringify(EMAIL)}; document.querySelector('input[type=password]').value = ${JSON.stringify(PASSWORD)}; document.querySelector('form button[type=submit]').click() })()`,
    )
    const consent = await firefox.contextWhere((url) => url.startsWith(`${server.base}/connect?`))
    await until('the consent page', () =>
      firefox.evaluate(consent, `[...document.querySelectorAll('button')].some((b) => b.textContent === 'Allow')`),
    )
    await firefox.evaluate(
      consent,
      `[...document.querySelectorAll('button')].find((b) => b.textContent === 'Allow').click()`,
    )
    await until(
      'Connected as',
      async () =>
        (await firefox.evaluate(options, `document.getElementById('connected-as')?.textContent ?? null`)) ===
        `Connected as ${EMAIL}`,
    )
    const connection = await firefox.evaluate(
      options,
      `browser.storage.local.get('connection').then((s) => s.connection)`,
    )
    expect(connection).toMatchObject({
      app: server.base,
      base: server.base,
      email: EMAIL,
      label: 'Readlater for Firefox',
    })
  }, 30_000)

  test('the toolbar button (as Alt+Shift+S presses it) saves the page as rendered', async () => {
    const url = `http://127.0.0.1:${fixtures.port}/story`
    const { context: tab } = await firefox.send('browsingContext.create', { type: 'tab' })
    await firefox.send('browsingContext.navigate', { context: tab, url, wait: 'complete' })
    await until('the rendered article', () => firefox.evaluate(tab, `document.title === 'The fox story'`))
    await firefox.send('browsingContext.activate', { context: tab })
    await firefox.pressButton()
    const result = await until('the result', async () => {
      const session = await firefox.evaluate(options, 'browser.storage.session.get(null)')
      return Object.entries(session as Record<string, any>).find(
        ([key, value]) => key.startsWith('tab:') && value.url === url && value.state === 'saved',
      )
    })
    expect(result[1].withHtml).toBe(true)
    const tabId = Number(result[0].slice(4))
    expect(await firefox.evaluate(options, `browser.action.getBadgeText({ tabId: ${tabId} })`)).toBe('✓')
    const content = await until('the article', async () => {
      const reply = await request(server.url, 'GET', `/v1/saved-items/${result[1].item.id}/content`, {
        token: adminKey,
      })
      return reply.status === 200 ? reply.body : null
    })
    expect(content.text).toContain('Firefox sent the rendered article')
    expect(content.text).not.toContain('Sign in to read')
  }, 30_000)
})
