import { describe, expect, test } from 'bun:test'
import { runMaintenance } from '../../adapters/storage/maintenance.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { userWithPassword } from './fixtures.ts'
import { WebClient, textOf } from './web-client.ts'

// Web sessions: idle timeout, CSRF rotation at sign-in and sign-out, "Sign out other sessions"
// (docs/security.md#web-sessions).

const env = { IP_RATE_LIMIT_MAX: '1000' }
const HOUR = 3_600_000
const DAY = 24 * HOUR

const person = (h: Harness, email = 'sessions@example.com'): Promise<string> =>
  userWithPassword(h, email, 'right password')

async function signedIn(h: Harness, email = 'sessions@example.com'): Promise<WebClient> {
  const web = new WebClient(h)
  expect((await web.signIn(email, 'right password')).status).toBe(303)
  return web
}

describe('idle timeout', () => {
  test('a session used within 7 days lives on (up to 30); one idle for 7 days ends, and maintenance drops it', async () => {
    const h = await createHarness({ env })
    await person(h)
    const busy = await signedIn(h)
    const idle = await signedIn(h)
    for (let day = 1; day <= 8; day++) {
      h.clock.advance(DAY)
      expect((await busy.get('/settings')).status).toBe(200)
    }
    expect((await idle.get('/settings')).status).toBe(303)
    await runMaintenance(h.db, h.clock.now())
    expect(Number((await h.db.$client.execute('SELECT count(*) AS n FROM web_sessions')).rows[0]!.n)).toBe(1)
  })

  test('use is written at most once an hour', async () => {
    const h = await createHarness({ env })
    await person(h)
    const web = await signedIn(h)
    const seen = async (): Promise<unknown> =>
      (await h.db.$client.execute('SELECT last_seen_at FROM web_sessions')).rows[0]!.last_seen_at
    await web.get('/settings')
    expect(await seen()).toBeNull()
    h.clock.advance(30 * 60_000)
    await web.get('/settings')
    expect(await seen()).toBeNull()
    h.clock.advance(31 * 60_000)
    await web.get('/settings')
    expect(await seen()).toBe(h.clock.now().toISOString())
  })
})

describe('CSRF token rotation', () => {
  test('sign-in and sign-out each set a new CSRF cookie; a form token from before sign-in is refused after it', async () => {
    const h = await createHarness({ env })
    await person(h)
    const web = new WebClient(h)
    await web.get('/sign-in')
    const before = web.cookies.get('rl_csrf')!
    const signIn = await web.post('/sign-in', { email: 'sessions@example.com', password: 'right password' })
    expect(signIn.setCookies.some((c) => c.startsWith('rl_csrf='))).toBe(true)
    const during = web.cookies.get('rl_csrf')!
    expect(during).not.toBe(before)
    const stale = await web.post('/settings/api-keys', { label: 'x', scope: 'folders:read' }, { csrf: before })
    expect(stale.status).toBe(403)
    await web.get('/settings')
    const signOut = await web.post('/sign-out')
    expect(signOut.status).toBe(303)
    expect(web.cookies.get('rl_csrf')).not.toBe(during)
  })
})

describe('"Sign out other sessions"', () => {
  test("ends every other session of the person; this one and other people's stay", async () => {
    const h = await createHarness({ env })
    await person(h)
    await person(h, 'someone-else@example.com')
    const here = await signedIn(h)
    const laptop = await signedIn(h)
    const stranger = await signedIn(h, 'someone-else@example.com')
    await here.get('/settings')
    const done = await here.post('/settings/sessions/sign-out-others')
    expect(done).toMatchObject({ status: 303, location: '/settings?done=signed-out-others' })
    expect(textOf((await here.get('/settings?done=signed-out-others')).text)).toContain(
      'Every other session is signed out.',
    )
    expect((await laptop.get('/settings')).status).toBe(303)
    expect((await stranger.get('/settings')).status).toBe(200)
  })

  test('needs the CSRF field', async () => {
    const h = await createHarness({ env })
    await person(h)
    const here = await signedIn(h)
    const other = await signedIn(h)
    await here.get('/settings')
    expect((await here.post('/settings/sessions/sign-out-others', {}, { csrf: null })).status).toBe(403)
    expect((await other.get('/settings')).status).toBe(200)
  })
})
