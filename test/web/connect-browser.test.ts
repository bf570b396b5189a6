import { afterAll, describe, expect, test } from 'bun:test'
import type { Page, Request as BrowserRequest } from 'playwright-core'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { countRows } from '../helpers/harness.ts'
import { CHROME_REDIRECT, FIREFOX_REDIRECT, pkcePair } from '../connect/connect-fixtures.ts'
import { userWithPassword } from './fixtures.ts'

// The connect page (docs/oauth.md#the-connect-page) in Debian's Chromium, as a browser extension's
// identity.launchWebAuthFlow window goes through it: sign-in, consent, and the final navigation to the
// redirect URI, which these tests catch (the machine has no network, and chromiumapp.org is the browser's).

const suite = browserSuite()
const BROWSER_TEST = { retry: 1, timeout: 30_000 }
const PASSWORD = 'correct horse battery'

let people = 0
/** A new person who can sign in with PASSWORD (a fresh address, so a retried test never meets its own). */
async function person(): Promise<{ email: string; id: string }> {
  const email = `connect-browser-${++people}-${Date.now()}@example.com`
  return { email, id: await userWithPassword(suite.live.harness, email, PASSWORD) }
}

function connectUrl(params: Record<string, string>): string {
  return `${suite.live.url}/connect?${new URLSearchParams({
    client: 'chrome-extension',
    redirectUri: CHROME_REDIRECT,
    codeChallengeMethod: 'S256',
    scopes: 'saved-items:capture,account:read',
    label: 'Chrome on the test machine',
    deviceHint: 'Chromium, headless',
    state: 'st-browser',
    ...params,
  })}`
}

/**
 * Answers every navigation to the extension's redirect hosts with a small page, as the browser's
 * identity API would take it over, and resolves with the first such URL.
 */
function catchRedirect(page: Page): Promise<URL> {
  const isRedirect = (url: URL) =>
    url.hostname.endsWith('.chromiumapp.org') || url.hostname.endsWith('.extensions.allizom.org')
  return new Promise((resolve) => {
    void page.route(isRedirect, async (route) => {
      resolve(new URL(route.request().url()))
      await route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Caught</title><p>Caught.</p>' })
    })
  })
}

const codes = () => countRows(suite.live.harness.db, 'connect_codes')

// Servers a test starts of its own, stopped after the file.
const stops: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const stop of stops) await stop()
})

describe('the connect page in Chromium', () => {
  test(
    'signed out: sign in, back to the consent, "Allow": the redirect URI gets code and state, traded for a working key',
    async () => {
      const who = await person()
      const page = await suite.newPage()
      const caught = catchRedirect(page)
      const pkce = pkcePair()
      const start = connectUrl({ codeChallenge: pkce.challenge })
      await page.goto(start)
      // The sign-in page, which will come back here.
      expect(page.url()).toStartWith(`${suite.live.url}/sign-in?next=`)
      expect(new URL(page.url()).searchParams.get('next')).toBe(start.slice(suite.live.url.length))
      await page.getByLabel('Email', { exact: true }).fill(who.email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('heading', { name: 'Connect Readlater for Chrome to your account?' }).waitFor()
      expect(page.url()).toBe(start)
      const permissions = page.getByRole('list', { name: 'Requested permissions' }).getByRole('listitem')
      expect(await permissions.allTextContents()).toEqual([
        'saved-items:capture: save a URL to the queue',
        'account:read: read the identity of the authenticated account',
      ])
      await expect(page.getByText('Chrome on the test machine', { exact: true }).isVisible()).resolves.toBe(true)
      await expect(page.getByText('Chromium, headless', { exact: true }).isVisible()).resolves.toBe(true)
      expect(await codes()).toBe(0)

      await page.getByRole('button', { name: 'Allow', exact: true }).click()
      const back = await caught
      expect(`${back.origin}${back.pathname}`).toBe(CHROME_REDIRECT)
      expect([...back.searchParams.keys()]).toEqual(['code', 'state'])
      expect(back.searchParams.get('state')).toBe('st-browser')
      await page.getByText('Caught.').waitFor()

      // What the extension does next: the exchange with its verifier, then the API with the key.
      const exchanged = await fetch(`${suite.live.url}/connect/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client: 'chrome-extension',
          code: back.searchParams.get('code'),
          codeVerifier: pkce.verifier,
        }),
      })
      expect(exchanged.status).toBe(200)
      const { apiKey } = (await exchanged.json()) as { apiKey: string }
      const me = await fetch(`${suite.live.url}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } })
      expect(me.status).toBe(200)
      expect(((await me.json()) as { email: string }).email).toBe(who.email)
      // And Settings lists it, with its label and device.
      await page.goto(`${suite.live.url}/settings`)
      const row = page.getByRole('row').filter({ hasText: 'Chrome on the test machine' })
      await expect(row.textContent()).resolves.toContain('chrome-extension · Chromium, headless')
    },
    BROWSER_TEST,
  )

  test(
    '"Deny" from the Firefox build (allizom.org redirect): error=access_denied and the state, nothing issued',
    async () => {
      const who = await person()
      const page = await suite.newPage()
      await signInThroughForm(page, suite.live.url, who.email, PASSWORD)
      const caught = catchRedirect(page)
      const before = await codes()
      await page.goto(connectUrl({ redirectUri: FIREFOX_REDIRECT, codeChallenge: pkcePair().challenge }))
      await page.getByRole('button', { name: 'Deny', exact: true }).click()
      const back = await caught
      expect(back.href).toBe(`${FIREFOX_REDIRECT}?error=access_denied&state=st-browser`)
      expect(await codes()).toBe(before)
    },
    BROWSER_TEST,
  )

  test(
    'raycast://: "Allow" answers 303 raycast://…?code…&state…, and the policy lets the form follow it',
    async () => {
      const who = await person()
      const page = await suite.newPage()
      await signInThroughForm(page, suite.live.url, who.email, PASSWORD)
      const violations: string[] = []
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(message.text())
      })
      await page.goto(
        connectUrl({
          client: 'raycast',
          redirectUri: 'raycast://oauth?package_name=readlater',
          codeChallenge: pkcePair().challenge,
        }),
      )
      await page.getByRole('heading', { name: 'Connect Raycast to your account?' }).waitFor()
      const posted = page.waitForResponse(
        (response) => response.request().method() === 'POST' && response.url() === `${suite.live.url}/connect`,
      )
      // Chromium hands raycast: to the system, which has no handler here: the page stays.
      await page.getByRole('button', { name: 'Allow', exact: true }).click()
      const response = await posted
      expect(response.status()).toBe(303)
      expect(response.headers().location).toMatch(
        /^raycast:\/\/oauth\?package_name=readlater&code=[A-Za-z0-9_-]{43}&state=st-browser$/,
      )
      await page.waitForTimeout(300)
      expect(violations).toEqual([])
    },
    BROWSER_TEST,
  )

  test(
    "the policy's form-action is what lets the redirect through: without the client's origin, Chromium stops it",
    async () => {
      const who = await person()
      const page = await suite.newPage()
      await signInThroughForm(page, suite.live.url, who.email, PASSWORD)
      const start = connectUrl({ codeChallenge: pkcePair().challenge })
      // The same page, its policy's form-action cut back to 'self'.
      await page.route(start, async (route) => {
        const response = await route.fetch()
        const headers = { ...response.headers() }
        headers['content-security-policy'] = headers['content-security-policy']!.replace(
          /form-action [^;]+;/,
          "form-action 'self';",
        )
        await route.fulfill({ response, headers })
      })
      const reached: string[] = []
      page.on('request', (request: BrowserRequest) => {
        if (new URL(request.url()).hostname.endsWith('.chromiumapp.org')) reached.push(request.url())
      })
      const violation = page.waitForEvent('console', (message) => message.text().includes('form-action'))
      await page.goto(start)
      await page.getByRole('button', { name: 'Allow', exact: true }).click()
      expect((await violation).text()).toContain('form-action')
      expect(reached).toEqual([])
    },
    BROWSER_TEST,
  )

  test(
    'in a frame of another origin the page stays blank: no consent to click',
    async () => {
      const who = await person()
      const page = await suite.newPage()
      await signInThroughForm(page, suite.live.url, who.email, PASSWORD)
      const start = connectUrl({ codeChallenge: pkcePair().challenge })
      // A page on another port of the same host (a real server, so Chromium treats it as the loopback page it
      // is): another origin, but the same site, so the session cookie (SameSite=Lax) goes along and the frame
      // gets the consent itself, not the sign-in page.
      const framer = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: () =>
          new Response(
            `<!doctype html><title>Framer</title><iframe name="victim" src="${start.replace(/&/g, '&amp;')}" width="600" height="400"></iframe>`,
            { headers: { 'content-type': 'text/html' } },
          ),
      })
      stops.push(() => framer.stop(true))
      const framed = page.waitForResponse((response) => response.url() === start)
      await page.goto(`http://127.0.0.1:${framer.port}/`)
      // The server did answer the frame with the consent, and with the headers that forbid showing it.
      const answer = await framed
      expect(answer.status()).toBe(200)
      expect(answer.headers()['x-frame-options']).toBe('DENY')
      expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
      await page.waitForTimeout(300)
      const frame = page.frames().find((f) => f.name() === 'victim')!
      expect(frame.url()).not.toBe(start)
      expect(await page.frameLocator('iframe[name="victim"]').getByRole('button', { name: 'Allow' }).count()).toBe(0)
      // The control: the same answer without those two headers does show in the frame.
      await page.route(start, async (route) => {
        const response = await route.fetch()
        const headers = { ...response.headers() }
        delete headers['x-frame-options']
        headers['content-security-policy'] = headers['content-security-policy']!.replace("frame-ancestors 'none'", '')
        await route.fulfill({ response, headers })
      })
      await page.reload()
      await page.frameLocator('iframe[name="victim"]').getByRole('button', { name: 'Allow' }).waitFor()
    },
    BROWSER_TEST,
  )

  test(
    'a request the page cannot trust is an error page, even signed in: the browser stays on this site',
    async () => {
      const who = await person()
      const page = await suite.newPage()
      await signInThroughForm(page, suite.live.url, who.email, PASSWORD)
      const start = connectUrl({ redirectUri: 'https://evil.example/cb', codeChallenge: pkcePair().challenge })
      const response = await page.goto(start)
      expect(response!.status()).toBe(400)
      expect(page.url()).toBe(start)
      await page.getByRole('heading', { name: 'This connection request cannot be used' }).waitFor()
      expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0)
    },
    BROWSER_TEST,
  )
})
