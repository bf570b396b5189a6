import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { countRows } from '../helpers/harness.ts'
import { browserSuite, signInThroughForm } from '../helpers/browser.ts'
import { userWithPassword } from './fixtures.ts'

// Settings' "Webhooks" in Debian's Chromium against the whole service on a real port
// (docs/web.md#webhooks): add one for a receiver on loopback (ENRICH_ALLOW_PRIVATE=1), copy the secret,
// "Send test", "Delete"; and the section audited (axe-core, nothing wider than the screen) on a phone.
const suite = browserSuite({ IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000', ENRICH_ALLOW_PRIVATE: '1' })
const PASSWORD = 'correct horse battery'
const BROWSER_TEST = { retry: 1, timeout: 60_000 }

const received: { method: string; headers: Record<string, string>; body: string }[] = []
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    received.push({ method: request.method, headers: Object.fromEntries(request.headers), body: await request.text() })
    return new Response(null, { status: 204 })
  },
})
const RECEIVER_URL = `http://127.0.0.1:${receiver.port}/hooks/readlater`
afterAll(async () => {
  await receiver.stop(true)
})
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

async function signedIn(prefix: string, options: Parameters<typeof suite.newPage>[0] = {}): Promise<Page> {
  const email = `${prefix}-${Date.now()}@example.com`
  await userWithPassword(suite.live.harness, email, PASSWORD)
  const page = await suite.newPage(options)
  await signInThroughForm(page, suite.live.url, email, PASSWORD)
  await page.goto(`${suite.live.url}/settings`)
  return page
}

async function addThroughForm(page: Page, url: string, events: string[]): Promise<void> {
  await page.getByLabel('Webhook URL', { exact: true }).fill(url)
  for (const event of events) await page.getByLabel(event, { exact: true }).check()
  await page.getByRole('button', { name: 'Add webhook', exact: true }).click()
  await page.waitForURL(`${suite.live.url}/settings/webhooks#webhooks`)
}

describe('Settings › Webhooks', () => {
  test(
    'add a webhook with two events, see its secret once, "Send test" is delivered and signed, "Delete" removes it',
    async () => {
      received.length = 0
      const { live } = suite
      const email = `hooks-${Date.now()}@example.com`
      await userWithPassword(live.harness, email, PASSWORD)
      const page = await suite.newPage()
      await signInThroughForm(page, live.url, email, PASSWORD)
      await page.goto(`${live.url}/settings`)
      const section = page.locator('section[aria-labelledby="webhooks"]')
      expect(await section.getByText('No webhooks yet.').count()).toBe(1)

      await page.getByLabel('Webhook URL', { exact: true }).fill(RECEIVER_URL)
      await page.getByLabel('saved_item.created', { exact: true }).check()
      await page.getByLabel('folder.created', { exact: true }).check()
      await page.getByRole('button', { name: 'Add webhook', exact: true }).click()
      await page.waitForURL(`${live.url}/settings/webhooks#webhooks`)

      const secret = (await page.locator('#new-webhook-secret').textContent())!
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/)
      expect(await section.getByRole('status').first().textContent()).toContain(
        'Copy its signing secret now: it is shown only this once.',
      )
      const card = section.locator('article.webhook')
      expect(await card.count()).toBe(1)
      expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe(RECEIVER_URL)
      expect(await card.locator('.webhook-events').textContent()).toBe('Events: saved_item.created, folder.created')
      expect(await card.getByText('No deliveries yet.').count()).toBe(1)

      await card.getByRole('button', { name: 'Send test', exact: true }).click()
      await page.waitForURL(/\/settings\/webhooks\/[0-9a-f-]{36}\/test#webhook-[0-9a-f-]{36}$/)
      expect(await page.locator('.test-outcome').textContent()).toBe(
        'Test message delivered: the receiver answered HTTP 204.',
      )
      // The secret was in the answer to "Add webhook" only.
      expect(await page.locator('#new-webhook-secret').count()).toBe(0)
      expect(await page.locator('td[data-label="Status"]').allTextContents()).toEqual(['delivered'])
      expect(await page.locator('td[data-label="Response"]').allTextContents()).toEqual(['HTTP 204'])

      expect(received).toHaveLength(1)
      const [request] = received
      expect(request!.method).toBe('POST')
      expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
      expect(request!.headers['webhook-signature']).toMatch(/^v1,/)
      // Signed with the very secret the page showed.
      expect(new Webhook(secret).verify(request!.body, request!.headers)).toMatchObject({ type: 'webhook.test' })

      await page.locator('article.webhook').getByRole('button', { name: 'Delete', exact: true }).click()
      await page.waitForURL(`${live.url}/settings?done=webhook-deleted`)
      expect(await page.getByRole('status').first().textContent()).toContain('Webhook deleted.')
      expect(await page.locator('article.webhook').count()).toBe(0)
      expect(await section.getByText('No webhooks yet.').count()).toBe(1)
      expect(await page.getByText(RECEIVER_URL).count()).toBe(0)
      expect(await countRows(live.harness.db, 'webhooks')).toBe(0)
      expect(received).toHaveLength(1)
    },
    BROWSER_TEST,
  )

  test(
    'a refused URL comes back next to the form with the reason, the choices kept',
    async () => {
      const { live } = suite
      const email = `hooks-bad-${Date.now()}@example.com`
      await userWithPassword(live.harness, email, PASSWORD)
      const page = await suite.newPage()
      await signInThroughForm(page, live.url, email, PASSWORD)
      await page.goto(`${live.url}/settings`)
      const before = await countRows(live.harness.db, 'webhooks')
      await page.getByLabel('Webhook URL', { exact: true }).fill('ftp://example.com/hooks')
      await page.getByLabel('folder.deleted', { exact: true }).check()
      await page.getByRole('button', { name: 'Add webhook', exact: true }).click()
      await page.waitForURL(`${live.url}/settings/webhooks#webhooks`)
      const section = page.locator('section[aria-labelledby="webhooks"]')
      expect(await section.getByRole('alert').textContent()).toBe(
        'Nothing was added: url must be http or https, not ftp:.',
      )
      expect(await page.getByLabel('Webhook URL', { exact: true }).inputValue()).toBe('ftp://example.com/hooks')
      expect(await page.getByLabel('folder.deleted', { exact: true }).isChecked()).toBe(true)
      expect(await page.getByLabel('saved_item.created', { exact: true }).isChecked()).toBe(false)
      expect(await countRows(live.harness.db, 'webhooks')).toBe(before)
    },
    BROWSER_TEST,
  )

  test(
    'light and dark, desktop and phone: no serious or critical axe-core violation, nothing wider than the screen',
    async () => {
      const page = await signedIn('hooks-look', { bypassCSP: true })
      // A long URL, a delivered test and a failed one: the widest things the section shows.
      await addThroughForm(page, `${RECEIVER_URL}?token=${'t0k3n'.repeat(30)}`, ['saved_item.created'])
      await addThroughForm(page, 'http://127.0.0.1:1/nobody-listens', ['folder.deleted'])
      for (const card of await page.locator('article.webhook').all()) {
        const action = (await card.locator('form[action*="/test"]').getAttribute('action'))!
        await card.getByRole('button', { name: 'Send test', exact: true }).click()
        await page.waitForURL(`${suite.live.url}${action}`)
      }
      expect(await page.locator('td[data-label="Status"]').allTextContents()).toEqual(['delivered', 'failed'])
      expect(await page.locator('.test-outcome').textContent()).toBe(
        'Test message failed: Could not connect to 127.0.0.1:1.',
      )
      for (const scheme of ['light', 'dark'] as const)
        for (const [device, viewport] of [
          ['desktop', { width: 1280, height: 900 }],
          ['phone', { width: 360, height: 780 }],
        ] as const) {
          await page.setViewportSize(viewport)
          await page.emulateMedia({ colorScheme: scheme })
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          )
          expect(`${scheme} ${device}: ${overflow}`).toBe(`${scheme} ${device}: 0`)
          await page.screenshot({ path: `/tmp/settings-webhooks-${scheme}-${device}.png`, fullPage: true })
          await page.evaluate(AXE)
          const found = (await page.evaluate(() =>
            (window as any).axe.run(document, { resultTypes: ['violations'] }),
          )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }
          const serious = found.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
          expect(serious).toEqual([])
        }
    },
    BROWSER_TEST,
  )
})
