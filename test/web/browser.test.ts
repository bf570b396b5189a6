import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser, startLiveServer, type LiveServer } from '../helpers/browser.ts'
import { insertAgent, userIdOf } from './fixtures.ts'
import { issueAccessToken } from '../../adapters/oauth/access-tokens.ts'
import { random } from '../helpers/harness.ts'

// The web app in Debian's Chromium against the whole service on a real port, using only the
// accessible names of docs/web.md#pages to find things.
let live: LiveServer
let browser: Browser
const contexts: BrowserContext[] = []

beforeAll(async () => {
  ;[live, browser] = await Promise.all([startLiveServer({ env: { IP_RATE_LIMIT_MAX: '1000' } }), launchBrowser()])
})

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  await live?.stop()
})

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  // A browser lost to an earlier failure is replaced, so one failure does not fail every later test.
  if (!browser.isConnected()) browser = await launchBrowser()
  // Without the offline worker (test/web/offline-browser.test.ts has it): pages load as they did.
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' })
  // Below the test's own timeout, so a stuck step fails with Playwright's message naming it.
  context.setDefaultTimeout(10_000)
  contexts.push(context)
  return context.newPage()
}

// Chromium on a loaded 2-core CI machine has, rarely, stalled a first navigation; one retry absorbs it.
const BROWSER_TEST = { retry: 1, timeout: 30_000 }

let attempt = 0
/** Signs up a new person; the address gets a fresh suffix so a retried test never meets its own account. Returns it. */
async function signUp(page: Page, base: string, password = 'correct horse battery'): Promise<string> {
  const email = base.replace('@', `+${++attempt}@`)
  await page.goto(`${live.url}/sign-up`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Create account', exact: true }).click()
  // Sign-up never signs in by itself (it answers the same for a taken email): the new person signs in.
  await page.waitForURL(`${live.url}/sign-in?signed-up=1`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await page.waitForURL(`${live.url}/`)
  return email
}

const api = (path: string, key: string): Promise<Response> =>
  fetch(`${live.url}${path}`, { headers: { authorization: `Bearer ${key}` } })

describe('in a real browser', () => {
  test(
    'sign up, sign in, land on the queue; sign out; sign in again',
    async () => {
      const page = await newPage()
      const email = await signUp(page, 'browser@example.com')
      await expect(page.getByRole('heading', { name: 'Your queue' }).isVisible()).resolves.toBe(true)
      const [session] = (await page.context().cookies()).filter((c) => c.name === 'rl_session')
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' })

      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await page.waitForURL(`${live.url}/sign-in`)
      expect((await page.context().cookies()).some((c) => c.name === 'rl_session')).toBe(false)
      await page.goto(`${live.url}/settings`)
      expect(page.url()).toBe(`${live.url}/sign-in?next=/settings`)

      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill('wrong password')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong email or password.')

      await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.waitForURL(`${live.url}/settings`)
      await expect(page.getByRole('heading', { name: 'API keys' }).isVisible()).resolves.toBe(true)
    },
    BROWSER_TEST,
  )

  test(
    'create a key with two chosen scopes, use it, revoke it: the next call is 401',
    async () => {
      const page = await newPage()
      await signUp(page, 'keys@example.com')
      await page.goto(`${live.url}/settings`)
      await page.getByLabel('Label', { exact: true }).fill('browser key')
      await page.getByLabel('saved-items:read', { exact: true }).check()
      await page.getByLabel('folders:read', { exact: true }).check()
      await page.getByRole('button', { name: 'Create key', exact: true }).click()
      const shown = page.locator('#new-api-key')
      await shown.waitFor()
      const key = (await shown.textContent())!
      expect(key).toMatch(/^rlk_[A-Za-z0-9_-]{43}$/)

      expect((await api('/v1/saved-items', key)).status).toBe(200)
      expect((await api('/v1/folders', key)).status).toBe(200)
      const denied = await api('/v1/me', key)
      expect(denied.status).toBe(403)
      expect(denied.headers.get('www-authenticate')).toContain('scope="account:read"')

      // Shown once: a fresh load of settings lists the key by prefix only.
      await page.goto(`${live.url}/settings`)
      expect(await page.content()).not.toContain(key)
      const row = page.getByRole('row').filter({ hasText: 'browser key' })
      await expect(row.textContent()).resolves.toContain(key.slice(0, 12))
      await expect(row.textContent()).resolves.toContain('saved-items:read')
      await row.getByRole('button', { name: 'Revoke', exact: true }).click()
      await page.waitForURL(`${live.url}/settings?done=key-revoked`)
      await expect(page.getByRole('row').filter({ hasText: 'browser key' }).count()).resolves.toBe(0)

      const after = await api('/v1/saved-items', key)
      expect(after.status).toBe(401)
      expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"')
    },
    BROWSER_TEST,
  )

  test(
    'a connected agent is listed with its client name and scopes, and "Revoke" ends its grant: its token then gets 401',
    async () => {
      const page = await newPage()
      const userId = await userIdOf(live.harness, await signUp(page, 'agents@example.com'))
      const { grantId, clientId } = await insertAgent(live.harness, userId, 'Claude Desktop', [
        'saved-items:read',
        'folders:read',
      ])
      const h = live.harness
      const token = await issueAccessToken(
        { db: h.db, config: h.config, clock: h.clock, random, log: () => {} },
        {
          grantId,
          userId,
          clientId,
          scope: 'saved-items:read folders:read',
          audience: live.url,
        },
      )
      expect((await api('/v1/saved-items', token)).status).toBe(200)
      await page.goto(`${live.url}/settings`)
      const row = page.getByRole('row').filter({ hasText: 'Claude Desktop' })
      const text = (await row.textContent())!
      expect(text).toContain('saved-items:read')
      expect(text).toContain('folders:read')
      await row.getByRole('button', { name: 'Revoke', exact: true }).click()
      await page.waitForURL(`${live.url}/settings?done=agent-revoked`)
      await expect(page.getByRole('row').filter({ hasText: 'Claude Desktop' }).count()).resolves.toBe(0)
      const stored = (
        await live.harness.db.$client.execute({
          sql: 'SELECT revoked_at FROM oauth_grants WHERE id = ?',
          args: [grantId],
        })
      ).rows[0]!
      expect(stored.revoked_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const after = await api('/v1/saved-items', token)
      expect(after.status).toBe(401)
      expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"')
    },
    BROWSER_TEST,
  )

  test(
    'capture from the queue page, toggle read; links open in a new tab without opener',
    async () => {
      const page = await newPage()
      await signUp(page, 'queue@example.com')
      await page.getByLabel('URL', { exact: true }).fill('https://example.com/article?utm_source=x')
      await page.getByRole('button', { name: 'Save', exact: true }).click()
      await page.waitForURL(`${live.url}/?done=saved`)
      const link = page.getByRole('link', { name: 'https://example.com/article?utm_source=x' })
      expect(await link.getAttribute('target')).toBe('_blank')
      expect(await link.getAttribute('rel')).toBe('noreferrer')
      // The queue opens on Unread: marked read, the item leaves it, and is under Read.
      await page.getByRole('button', { name: 'Mark read', exact: true }).click()
      await page.waitForURL(`${live.url}/`)
      await link.waitFor({ state: 'detached' })
      await page.getByRole('link', { name: 'Read', exact: true }).click()
      await page.waitForURL(`${live.url}/?state=read`)
      await expect(page.getByRole('button', { name: 'Mark unread', exact: true }).isVisible()).resolves.toBe(true)
    },
    BROWSER_TEST,
  )

  test(
    'settings and the queue at phone and desktop width: nothing wider than the screen (screenshots in /tmp)',
    async () => {
      for (const [name, viewport] of [
        ['phone', { width: 390, height: 844 }],
        ['desktop', { width: 1280, height: 900 }],
      ] as const) {
        const page = await newPage(viewport)
        const userId = await userIdOf(live.harness, await signUp(page, `shots-${name}@example.com`))
        await insertAgent(live.harness, userId, 'Claude Desktop', [
          'saved-items:read',
          'saved-items:capture',
          'folders:read',
        ])
        await page.goto(`${live.url}/settings`)
        await page.getByLabel('Label', { exact: true }).fill('Raycast on the laptop')
        await page.getByLabel('saved-items:capture', { exact: true }).check()
        await page.getByLabel('saved-items:read', { exact: true }).check()
        await page.getByRole('button', { name: 'Create key', exact: true }).click()
        await page.locator('#new-api-key').waitFor()
        // Nothing may be wider than the screen: no sideways scrolling on a phone.
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        )
        expect(overflow).toBe(0)
        await page.screenshot({ path: `/tmp/settings-${name}.png`, fullPage: true })

        await page.getByRole('link', { name: 'Queue', exact: true }).click()
        for (const url of [
          'https://example.com/a/very/long/path/that/goes/on/and/on/and/on/for-a-while?with=query',
          'https://github.com/owner/repo',
        ]) {
          await page.getByLabel('URL', { exact: true }).fill(url)
          await page.getByRole('button', { name: 'Save', exact: true }).click()
          await page.waitForURL(`${live.url}/?done=saved`)
        }
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBe(0)
        await page.screenshot({ path: `/tmp/queue-${name}.png`, fullPage: true })
      }
    },
    BROWSER_TEST,
  )

  test(
    '"Delete account": a wrong password deletes nothing; the right one removes every row of the person and signs out',
    async () => {
      const page = await newPage()
      const email = await signUp(page, 'leaving@example.com')
      const userId = await userIdOf(live.harness, email)
      const other = await live.harness.user()
      const otherKey = await other.key()
      await page.getByLabel('URL', { exact: true }).fill('https://example.com/leaving')
      await page.getByRole('button', { name: 'Save', exact: true }).click()
      await page.waitForURL(`${live.url}/?done=saved`)
      await page.goto(`${live.url}/settings`)
      await page.getByLabel('Label', { exact: true }).fill('leaving key')
      await page.getByLabel('saved-items:read', { exact: true }).check()
      await page.getByRole('button', { name: 'Create key', exact: true }).click()
      await page.waitForLoadState()
      const key = (await page.locator('#new-api-key').textContent())!.trim()
      const owned = async (): Promise<number> => {
        let total = 0
        for (const table of [
          'users',
          'saved_items',
          'api_keys',
          'web_sessions',
          'folders',
          'oauth_grants',
          'connect_codes',
          'idempotency_keys',
        ]) {
          const column = table === 'users' ? 'id' : 'user_id'
          total += Number(
            (
              await live.harness.db.$client.execute({
                sql: `SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`,
                args: [userId],
              })
            ).rows[0]!.n,
          )
        }
        return total
      }
      expect(await owned()).toBeGreaterThanOrEqual(4)

      await page.getByLabel('Password', { exact: true }).fill('not my password')
      await page.getByRole('button', { name: 'Delete account', exact: true }).click()
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'That is not your password. Nothing was deleted.',
      )
      expect((await api('/v1/saved-items', key)).status).toBe(200)

      await page.getByLabel('Password', { exact: true }).fill('correct horse battery')
      await page.getByRole('button', { name: 'Delete account', exact: true }).click()
      // waitFor, not isVisible: the form's answer is a navigation, and isVisible does not wait for it.
      await page.getByRole('heading', { name: 'Account deleted' }).waitFor()
      expect(await owned()).toBe(0)
      expect((await api('/v1/saved-items', key)).status).toBe(401)
      expect((await api('/v1/saved-items', otherKey)).status).toBe(200)
      expect((await page.context().cookies()).some((c) => c.name === 'rl_session' && c.value !== '')).toBe(false)
      await page.goto(`${live.url}/settings`)
      expect(page.url()).toBe(`${live.url}/sign-in?next=/settings`)
      // The email is free again.
      await page.goto(`${live.url}/sign-up`)
      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill('a new password')
      await page.getByRole('button', { name: 'Create account', exact: true }).click()
      await page.waitForURL(`${live.url}/sign-in?signed-up=1`)
      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill('a new password')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.waitForURL(`${live.url}/`)
    },
    BROWSER_TEST,
  )
})
