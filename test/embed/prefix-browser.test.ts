import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { createReadlater, type Readlater } from '../../index.ts'
import { launchBrowser } from '../helpers/browser.ts'

// docs/embedding.md#mounting: the whole service inside a host app under /readlater, in a real browser:
// sign up, sign in, save a page, reach settings, and an OAuth client's authorization request lands on
// the prefixed sign-in page. The host app keeps its own root.

const dir = mkdtempSync(join(tmpdir(), 'readlater-prefix-'))
let readlater: Readlater
let host: ReturnType<typeof Bun.serve>
let browser: Browser
let base = ''

beforeAll(async () => {
  host = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request, server) {
      const path = new URL(request.url).pathname
      if (path === '/readlater' || path.startsWith('/readlater/') || path.startsWith('/.well-known/'))
        return readlater.fetch(request, server)
      return new Response('the host app')
    },
  })
  base = `http://127.0.0.1:${host.port}/readlater`
  readlater = await createReadlater({
    baseUrl: base,
    databaseUrl: `file:${join(dir, 'prefix.db')}`,
    logLevel: 'silent',
    background: false,
    ipRateLimitMax: 100_000,
  })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await readlater?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('sign up, sign in, save a page and open settings, all under /readlater', async () => {
  const page = await browser.newPage()
  try {
    await page.goto(`${base}/sign-up`)
    await page.getByLabel('Email', { exact: true }).fill('prefix@example.com')
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
    await page.getByRole('button', { name: 'Create account', exact: true }).click()
    await page.waitForURL(`${base}/sign-in?signed-up=1`)
    await page.getByLabel('Email', { exact: true }).fill('prefix@example.com')
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${base}/`)
    expect(await page.getByRole('heading', { name: 'Your queue' }).isVisible()).toBe(true)
    // The stylesheet and scripts load from under the prefix: the page is styled.
    const styled = await page.evaluate(() => [...document.styleSheets].some((sheet) => sheet.cssRules.length > 10))
    expect(styled).toBe(true)

    await page.getByLabel('URL', { exact: true }).fill('https://example.com/under-a-prefix')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('example.com/under-a-prefix').first().waitFor()
    expect(page.url().startsWith(`${base}/`)).toBe(true)

    await page.getByRole('link', { name: 'Settings' }).first().click()
    await page.waitForURL(`${base}/settings`)
    expect(await page.getByRole('heading', { name: 'Webhooks' }).isVisible()).toBe(true)
    // Every link and form of the page stays under the prefix.
    const targets = await page.evaluate(() =>
      [...document.querySelectorAll('a[href], form[action], link[href], script[src]')].map(
        (el) => el.getAttribute('href') ?? el.getAttribute('action') ?? el.getAttribute('src') ?? '',
      ),
    )
    const local = targets.filter((target) => target.startsWith('/'))
    expect(local.length).toBeGreaterThan(5)
    expect(local.filter((target) => !target.startsWith('/readlater/'))).toEqual([])
  } finally {
    await page.close()
  }
}, 60_000)

test('the host app keeps its root; an OAuth authorization request reaches the prefixed sign-in', async () => {
  expect(await (await fetch(`http://127.0.0.1:${host.port}/`)).text()).toBe('the host app')
  const metadata = await (
    await fetch(`http://127.0.0.1:${host.port}/.well-known/oauth-authorization-server/readlater/api/auth`)
  ).json()
  const authorize = new URL(metadata.authorization_endpoint)
  expect(authorize.pathname).toBe('/readlater/api/auth/oauth2/authorize')
  const registered = await (
    await fetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Prefix test', redirect_uris: ['http://127.0.0.1:9/callback'] }),
    })
  ).json()
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: registered.client_id,
    redirect_uri: 'http://127.0.0.1:9/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    scope: 'saved-items:read',
    resource: `${base}/mcp`,
  }).toString()
  const answer = await fetch(authorize, { redirect: 'manual' })
  expect(answer.status).toBe(303)
  expect(answer.headers.get('location')!.startsWith(`${base}/sign-in`)).toBe(true)
})
