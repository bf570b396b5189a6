import { describe, expect, test } from 'bun:test'
import { createHarness } from '../helpers/harness.ts'
import { hashPassword } from '../../adapters/app/passwords.ts'
import { insertUser } from '../../adapters/storage/users.ts'
import { send } from '../oauth/oauth-helpers.ts'
import { WebClient } from './web-client.ts'

// Malformed cookies and `next` values are treated as absent, never a 500 (docs/api.md#hostile-input).

describe('malformed cookies', () => {
  const cookies = [
    'rl_session=%zz',
    'rl_csrf=%zz',
    'rl_session=%zz; rl_csrf=%E0%A4%A',
    '__Host-rl_session=%; __Host-rl_csrf=%zz',
    'rl_session=%ff%fe',
  ]
  // What a visitor without a session gets on each page.
  const pages: [string, number][] = [
    ['/', 200],
    ['/settings', 303],
    ['/sign-in', 200],
    ['/sign-up', 200],
    ['/sign-out', 303],
    ['/no-such-page', 404],
  ]

  test('every page answers as to a visitor without a session', async () => {
    const h = await createHarness()
    for (const cookie of cookies) {
      for (const [path, status] of pages) {
        const reply = await send(h, 'GET', path, { headers: { cookie, accept: 'text/html' } })
        expect({ cookie, path, status: reply.status }).toEqual({ cookie, path, status })
      }
    }
  })

  test('a cookie-authenticated API call answers 401, and a form post 403, never 500', async () => {
    const h = await createHarness()
    for (const cookie of cookies) {
      const api = await send(h, 'GET', '/v1/saved-items', { headers: { cookie } })
      expect(api.status).toBe(401)
      expect(api.body).toMatchObject({ _tag: 'Unauthorized' })
      const write = await send(h, 'POST', '/v1/folders', {
        headers: { cookie, 'x-csrf-token': '%zz', 'content-type': 'application/json' },
        body: '{"name":"x"}',
      })
      expect(write.status).toBe(401)
      const form = await send(h, 'POST', '/settings/api-keys', {
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=%zz&label=x',
      })
      expect(form.status).toBe(403)
    }
  })
})

describe('sign-in with a non-ASCII next', () => {
  test('next=/。x is percent-encoded into the redirect, never a 500', async () => {
    const h = await createHarness()
    await insertUser(h.db, {
      id: '01900000-0000-7000-8000-00000000a11c',
      email: 'next@example.com',
      passwordHash: await hashPassword('a long password'),
      createdAt: h.clock.now().toISOString(),
    })
    for (const [next, location] of [
      ['/。x', '/%E3%80%82x'],
      ['/é?q=ü#frag', '/%C3%A9?q=%C3%BC#frag'],
      ['/\ud800', '/%EF%BF%BD'],
    ] as const) {
      const browser = new WebClient(h)
      const page = await browser.signIn('next@example.com', 'a long password', next)
      expect({ next, status: page.status, location: page.location }).toEqual({ next, status: 303, location })
    }
  })
})

describe('an address part that is not valid percent-encoding', () => {
  test("is an id nothing has: each page answers its own not-found, after the form's CSRF check, never a 400 or 500", async () => {
    const h = await createHarness()
    const browser = new WebClient(h)
    await browser.signUp('param@example.com')
    await browser.signIn('param@example.com', 'correct horse battery')
    await browser.request('GET', '/settings')
    const csrf = browser.csrf
    const form = new URLSearchParams({ csrf, isRead: 'true', name: 'x' })
    const answers: [string, string, number, string][] = [
      ['GET', '/items/%zz', 404, 'Page not found'],
      ['GET', '/queue/items/%zz/move', 404, 'No such item'],
      ['GET', '/queue/items/%zz/open', 404, 'No such item'],
      ['GET', '/settings/imports/%zz', 404, 'No such import'],
      ['POST', '/queue/items/%zz/read-state', 404, 'No such item'],
      ['POST', '/queue/items/%zz/folder', 404, 'No such item'],
      ['POST', '/queue/items/%zz/delete', 404, 'No such item'],
      ['POST', '/queue/folders/%zz/rename', 404, 'No such folder'],
      ['POST', '/queue/folders/%zz/delete', 404, 'No such folder'],
      ['POST', '/settings/api-keys/%zz/revoke', 404, 'No such key'],
      ['POST', '/settings/agents/%E0%A4%A/revoke', 404, 'No such agent'],
      ['POST', '/settings/webhooks/%zz/test', 404, 'No such webhook'],
      ['POST', '/settings/webhooks/%zz/delete', 404, 'No such webhook'],
      ['POST', '/items/%zz/progress', 400, 'progress must be'],
    ]
    for (const [method, path, status, text] of answers) {
      const page = await browser.request(method, path, method === 'POST' ? form : undefined)
      expect({ path, status: page.status, has: page.text.includes(text) }).toEqual({ path, status, has: true })
    }
    const stale = await browser.request('POST', '/settings/api-keys/%zz/revoke', new URLSearchParams({ csrf: 'stale' }))
    expect(stale.status).toBe(403)
  })
})
