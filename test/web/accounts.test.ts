import { describe, expect, test } from 'bun:test'
import { hashSecret } from '../../core/auth/secrets.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { userWithPassword } from './fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

const env = { IP_RATE_LIMIT_MAX: '1000' }

async function sessionRows(h: Harness): Promise<{ user_id: string; token_hash: string }[]> {
  return (await h.db.$client.execute('SELECT user_id, token_hash FROM web_sessions')).rows as never
}

describe('sign-up', () => {
  test('GET /sign-up shows "Email", "Password" and "Create account" with a CSRF field and the HTML security headers', async () => {
    const h = await createHarness({ env })
    const page = await new WebClient(h).get('/sign-up')
    expect(page.status).toBe(200)
    expect(page.text).toContain('<label for="email">Email</label>')
    expect(page.text).toContain('<input id="email" name="email" type="email"')
    expect(page.text).toContain('<label for="password">Password</label>')
    expect(page.text).toContain('<button type="submit">Create account</button>')
    expect(page.text).toMatch(/<input type="hidden" name="csrf" value="[A-Za-z0-9_-]{43}">/)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('cache-control')).toBe('no-store')
  })

  test('creates the account (argon2id) without signing in; signing in with it sets an HttpOnly SameSite=Lax cookie and goes to next', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.get('/sign-up?next=/settings')
    const page = await web.post('/sign-up', {
      email: ' New.Person@Example.com ',
      password: 'long enough',
      next: '/settings',
    })
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in?next=/settings&signed-up=1')
    expect(page.setCookies.some((c) => c.startsWith('rl_session='))).toBe(false)
    const [user] = (await h.db.$client.execute('SELECT id, email, password_hash FROM users')).rows as never as {
      id: string
      email: string
      password_hash: string
    }[]
    expect(user!.email).toBe('new.person@example.com')
    expect(user!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(user!.password_hash).toStartWith('$argon2id$')
    expect(user!.password_hash).not.toContain('long enough')
    const form = await web.get(page.location!)
    expect(textOf(form.text)).toContain(
      'If this email had no account, it has one now: sign in with the password you chose.',
    )
    const signedIn = await web.post('/sign-in', {
      email: 'new.person@example.com',
      password: 'long enough',
      next: '/settings',
    })
    expect(signedIn.status).toBe(303)
    expect(signedIn.location).toBe('/settings')
    const cookie = signedIn.setCookies.find((c) => c.startsWith('rl_session='))!
    expect(cookie).toMatch(/^rl_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly$/)
    expect(cookie).not.toContain('Secure')
    const settings = await web.get('/settings')
    expect(settings.status).toBe(200)
    expect(textOf(settings.text)).toContain('Signed in as new.person@example.com')
    expect(h.logs.some((l) => JSON.stringify(l).includes('long enough'))).toBe(false)
  })

  test('stores the session token only hashed: token_hash = SHA-256(cookie), never the cookie itself', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.signUp('hashed@example.com')
    const token = web.cookies.get('rl_session')!
    const rows = await sessionRows(h)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).not.toBe(token)
    expect(rows[0]!.token_hash).toBe(hashSecret(token))
    const dump = JSON.stringify((await h.db.$client.execute('SELECT * FROM web_sessions')).rows)
    expect(dump).not.toContain(token)
    expect(JSON.stringify(h.logs)).not.toContain(token)
  })

  test.each([
    ['a malformed email', 'not-an-email', 'long enough', 'That does not look like an email address'],
    ['an empty email', '', 'long enough', 'Enter your email address'],
    ['a short password', 'short@example.com', 'short', 'Password must be at least 8 characters'],
  ])(
    're-renders the form with 422 for %s: email kept, password never echoed, nothing created',
    async (_, email, password, error) => {
      const h = await createHarness({ env })
      await userWithPassword(h, 'taken@example.com', 'whatever-123')
      const web = new WebClient(h)
      await web.get('/sign-up')
      const page = await web.post('/sign-up', { email, password })
      expect(page.status).toBe(422)
      expect(page.text).toContain(error)
      expect(page.text).toContain(`value="${email}"`)
      expect(page.text).not.toContain(password === 'short' ? 'value="short"' : password)
      expect(page.setCookies.some((c) => c.startsWith('rl_session='))).toBe(false)
      expect(await countRows(h.db, 'users')).toBe(1)
      expect(await countRows(h.db, 'web_sessions')).toBe(0)
    },
  )

  test('SIGNUP=closed: the page says sign-up is closed and POST answers 403 creating nothing', async () => {
    const h = await createHarness({ env: { ...env, SIGNUP: 'closed' } })
    const web = new WebClient(h)
    const form = await web.get('/sign-up')
    expect(form.status).toBe(403)
    expect(textOf(form.text)).toContain('Sign-up is closed')
    expect(form.text).not.toContain('Create account</button>')
    await web.get('/sign-in')
    const post = await web.post('/sign-up', { email: 'closed@example.com', password: 'long enough' })
    expect(post.status).toBe(403)
    expect(textOf(post.text)).toContain('Sign-up is closed')
    expect(await countRows(h.db, 'users')).toBe(0)
    expect(await countRows(h.db, 'web_sessions')).toBe(0)
    const landing = await web.get('/')
    expect(landing.text).not.toContain('class="button secondary" href="/sign-up"')
  })
})

describe('sign-in', () => {
  test('GET /sign-in shows "Email", "Password" and "Sign in", keeping next in a hidden field', async () => {
    const h = await createHarness({ env })
    const page = await new WebClient(h).get('/sign-in?next=%2Fsettings%3Fa%3D1')
    expect(page.status).toBe(200)
    expect(page.text).toContain('<label for="email">Email</label>')
    expect(page.text).toContain('<label for="password">Password</label>')
    expect(page.text).toContain('<button type="submit">Sign in</button>')
    expect(page.text).toContain('<input type="hidden" name="next" value="/settings?a=1">')
  })

  test('the right password starts a new session and goes to next', async () => {
    const h = await createHarness({ env })
    const id = await userWithPassword(h, 'ok@example.com', 'right password')
    const web = new WebClient(h)
    const page = await web.signIn('OK@example.com', 'right password', '/settings')
    expect(page.status).toBe(303)
    expect(page.location).toBe('/settings')
    expect((await sessionRows(h)).map((r) => r.user_id)).toEqual([id])
  })

  test('a wrong password and an unknown email get the same generic 401 page, and no session', async () => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'known@example.com', 'right password')
    const web = new WebClient(h)
    const wrong = await web.signIn('known@example.com', 'wrong password')
    const unknown = await web.signIn('nobody@example.com', 'right password')
    for (const page of [wrong, unknown]) {
      expect(page.status).toBe(401)
      expect(page.text).toContain('Wrong email or password.')
      expect(page.setCookies.some((c) => c.startsWith('rl_session='))).toBe(false)
    }
    const strip = (text: string, email: string) => text.replace(email, 'E').replace(/[A-Za-z0-9_-]{43}/g, 'T')
    expect(strip(wrong.text, 'known@example.com')).toBe(strip(unknown.text, 'nobody@example.com'))
    expect(wrong.text).not.toContain('wrong password')
    expect(await countRows(h.db, 'web_sessions')).toBe(0)
  })

  test('an unknown email costs a password hash too, so both failures take comparable time', async () => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'timed@example.com', 'right password')
    const web = new WebClient(h)
    await web.get('/sign-in')
    await web.post('/sign-in', { email: 'warm@example.com', password: 'x' }) // builds the dummy hash once
    const median = async (email: string): Promise<number> => {
      const times: number[] = []
      for (let i = 0; i < 7; i++) {
        const started = performance.now()
        await web.post('/sign-in', { email, password: 'wrong password' })
        times.push(performance.now() - started)
      }
      return times.sort((a, b) => a - b)[3]!
    }
    const known = await median('timed@example.com')
    const unknown = await median('nobody@example.com')
    expect(known).toBeGreaterThan(5)
    // Loose bounds on purpose (the machine is shared): without the dummy hash an unknown email answers
    // in well under a tenth of an argon2id verification, which these bounds still catch.
    expect(unknown).toBeGreaterThan(known * 0.25)
    expect(unknown).toBeLessThan(known * 4)
  })

  test.each([
    '//evil.com',
    'https://evil.com',
    '/\\evil.com',
    '/\t/evil.com',
    'javascript:alert(1)',
    'evil.com',
    '\\\\evil.com',
    '',
  ])('next=%p is not a path on this site: sign-in goes to /', async (next) => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'redirect@example.com', 'right password')
    const web = new WebClient(h)
    const page = await web.signIn('redirect@example.com', 'right password', next)
    expect(page.status).toBe(303)
    expect(page.location).toBe('/')
    // Already signed in, GET /sign-in?next=… redirects straight away, with the same rule.
    const again = await web.get(`/sign-in?next=${encodeURIComponent(next)}`)
    expect(again.status).toBe(303)
    expect(again.location).toBe('/')
  })

  test('an OAuth authorize URL in next comes back byte for byte after sign-in', async () => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'oauth@example.com', 'right password')
    const authorize =
      '/api/auth/oauth2/authorize?response_type=code&client_id=abc&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcb&scope=saved-items%3Aread+folders%3Aread&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=x%2By%3D&resource=http%3A%2F%2Flocalhost%3A3000'
    const web = new WebClient(h)
    const form = await web.get(`/sign-in?next=${encodeURIComponent(authorize)}`)
    expect(form.status).toBe(200)
    const page = await web.post('/sign-in', {
      email: 'oauth@example.com',
      password: 'right password',
      next: /name="next" value="([^"]*)"/.exec(form.text)![1]!.replaceAll('&amp;', '&'),
    })
    expect(page.status).toBe(303)
    expect(page.location).toBe(authorize)
    const again = await web.get(`/sign-in?next=${encodeURIComponent(authorize)}`)
    expect(again.location).toBe(authorize)
  })

  test('signing in again replaces the session the browser already had (no fixation)', async () => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'again@example.com', 'right password')
    const web = new WebClient(h)
    await web.signIn('again@example.com', 'right password')
    const first = web.cookies.get('rl_session')!
    // A signed-in person who posts the sign-in form again (a form made after this sign-in: the CSRF token rotated).
    await web.post(
      '/sign-in',
      { email: 'again@example.com', password: 'right password' },
      { csrf: web.cookies.get('rl_csrf')! },
    )
    const second = web.cookies.get('rl_session')!
    expect(second).not.toBe(first)
    expect((await sessionRows(h)).map((r) => r.token_hash)).toEqual([hashSecret(second)])
  })

  test('POST /sign-in is rate-limited per IP (IP_RATE_LIMIT_MAX) with an HTML 429', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '3' } })
    const web = new WebClient(h, { ip: '203.0.113.9' })
    await web.get('/sign-in')
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push((await web.post('/sign-in', { email: 'x@example.com', password: 'nope nope' })).status)
    expect(statuses).toEqual([401, 401, 401, 429])
    const refused = await web.post('/sign-in', { email: 'x@example.com', password: 'nope nope' })
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(refused.headers.get('retry-after')).toBe('60')
    // Another address has its own bucket.
    const other = new WebClient(h, { ip: '203.0.113.10' })
    expect((await other.signIn('x@example.com', 'nope nope')).status).toBe(401)
  })
})

describe('sessions', () => {
  test('sign-out deletes the session row and clears the cookie; the old cookie no longer works', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.signUp('bye@example.com')
    const token = web.cookies.get('rl_session')!
    const confirm = await web.get('/sign-out')
    expect(confirm.status).toBe(200)
    expect(confirm.text).toContain('<button type="submit">Sign out</button>')
    const out = await web.post('/sign-out')
    expect(out.status).toBe(303)
    expect(out.location).toBe('/sign-in')
    expect(out.setCookies).toContain('rl_session=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly')
    expect(await countRows(h.db, 'web_sessions')).toBe(0)
    web.cookies.set('rl_session', token)
    const settings = await web.get('/settings')
    expect(settings.status).toBe(303)
    expect(settings.location).toBe('/sign-in?next=/settings')
  })

  test('GET /sign-in and /sign-up when already signed in go straight to next', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.signUp('already@example.com')
    expect((await web.get('/sign-in?next=/settings')).location).toBe('/settings')
    expect((await web.get('/sign-up')).location).toBe('/')
  })

  test('an expired session is treated as signed out', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.signUp('expiring@example.com')
    expect((await web.get('/settings')).status).toBe(200)
    h.clock.advance(31 * 86_400_000)
    expect((await web.get('/settings')).location).toBe('/sign-in?next=/settings')
  })

  test('with an https APP_URL the cookies are Secure and __Host- prefixed', async () => {
    const h = await createHarness({
      env: { ...env, APP_URL: 'https://read.example.com', BASE_URL: 'https://read.example.com' },
    })
    const web = new WebClient(h)
    const form = await web.get('/sign-up')
    expect(form.setCookies[0]).toMatch(
      /^__Host-rl_csrf=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly; Secure$/,
    )
    expect((await web.post('/sign-up', { email: 'secure@example.com', password: 'long enough' })).status).toBe(303)
    const page = await web.signIn('secure@example.com', 'long enough')
    expect(page.status).toBe(303)
    const cookie = page.setCookies.find((c) => c.startsWith('__Host-rl_session='))!
    expect(cookie).toMatch(
      /^__Host-rl_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; SameSite=Lax; HttpOnly; Secure$/,
    )
    expect(cookie).not.toContain('Domain')
    expect((await web.get('/settings')).status).toBe(200)
    // The plain-http cookie name means nothing on an https deployment.
    const plain = new WebClient(h)
    plain.cookies.set('rl_session', web.cookies.get('__Host-rl_session')!)
    expect((await plain.get('/settings')).status).toBe(303)
  })
})
