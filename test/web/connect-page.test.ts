import { beforeEach, describe, expect, test } from 'bun:test'
import { createSession } from '../../adapters/app/web-sessions.ts'
import { sessionCookieName } from '../../adapters/http/browser-session.ts'
import { SCOPE_DESCRIPTIONS } from '../../core/auth/scope-descriptions.ts'
import { SCOPES } from '../../core/types.ts'
import { countRows, createHarness, random, type Harness, type TestUser } from '../helpers/harness.ts'
import {
  CHROME_REDIRECT,
  exchange,
  FIREFOX_REDIRECT,
  pkcePair,
  RAYCAST_REDIRECT,
  RFC7636_CHALLENGE,
  RFC7636_VERIFIER,
} from '../connect/connect-fixtures.ts'
import { textOf as markupText, WebClient, type Page } from './web-client.ts'

// The connect page (docs/oauth.md#the-connect-page, docs/web.md#pages), over HTTP: GET /connect checks the
// request and shows the consent, POST /connect answers the client with a 303 to its redirect URI.

const REQUEST = {
  client: 'chrome-extension',
  redirectUri: CHROME_REDIRECT,
  codeChallenge: RFC7636_CHALLENGE,
  codeChallengeMethod: 'S256',
  scopes: 'saved-items:capture,saved-items:read,account:read',
  label: 'Chrome on my laptop',
  deviceHint: 'MacBook Air, Chrome 142',
  state: 'st-8Kq2',
}
type Params = Record<string, string | string[] | undefined>

const decode = (text: string): string =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
/** A page's visible text, as a person reads it. */
const textOf = (markup: string): string => decode(markupText(markup))

/** /connect with REQUEST's parameters and `changes` (undefined leaves one out, an array repeats it). */
function connectPath(changes: Params = {}): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...REQUEST, ...changes }))
    if (value !== undefined) for (const v of [value].flat()) search.append(name, v)
  return `/connect?${search}`
}

/** The consent form's fields as the page wrote them (hidden inputs, the CSRF token among them). */
function formFields(page: Page): Record<string, string> {
  const form = /<form method="post" action="\/connect">([\s\S]*?)<\/form>/.exec(page.text)
  if (!form) throw new Error('no consent form on the page')
  const fields: Record<string, string> = {}
  for (const [, name, value] of form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[name!] = decode(value!)
  return fields
}

/** Posts the consent form of `page` with a decision, as the browser does on "Allow" or "Deny". */
function answer(web: WebClient, page: Page, decision: string, changes: Record<string, string> = {}): Promise<Page> {
  const { csrf, ...fields } = formFields(page)
  return web.post('/connect', { ...fields, decision, ...changes }, { csrf: csrf! })
}

/** The parameters of a 303 to the client, and the address they were added to. */
function answered(page: Page): { base: string; params: Record<string, string> } {
  expect(page.status).toBe(303)
  const location = page.location!
  const url = new URL(location)
  return {
    base: location.slice(0, location.indexOf(url.search.slice(1)) - 1),
    params: Object.fromEntries(url.searchParams),
  }
}

let h: Harness
let person: TestUser
let web: WebClient

/** A browser with a session for `who` (no sign-in form: these tests are about the connect page). */
async function signedIn(who: TestUser): Promise<WebClient> {
  const client = new WebClient(h)
  client.cookies.set(sessionCookieName(false), await createSession({ db: h.db, clock: h.clock, random }, who.id))
  return client
}

const codes = () => countRows(h.db, 'connect_codes')

beforeEach(async () => {
  h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '100000' } })
  person = await h.user()
  web = await signedIn(person)
})

describe('GET /connect: the consent page', () => {
  test('names the client, the label, the device hint, each scope with its description, and where the answer goes', async () => {
    const page = await web.get(connectPath())
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const text = textOf(page.text)
    expect(text).toContain('Connect Readlater for Chrome to your account?')
    expect(text).toContain('The key will be named Chrome on my laptop , for the device MacBook Air, Chrome 142 .')
    for (const scope of ['saved-items:capture', 'saved-items:read', 'account:read'] as const)
      expect(page.text).toContain(`<li><code>${scope}</code>: ${SCOPE_DESCRIPTIONS[scope]}</li>`)
    expect(page.text.match(/<li><code>/g)?.length).toBe(3)
    expect(text).toContain('you will be sent to https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org .')
    expect(page.text).toContain('<button type="submit" name="decision" value="allow">Allow</button>')
    expect(page.text).toContain('<button type="submit" name="decision" value="deny" class="secondary">Deny</button>')
    expect(formFields(page)).toEqual({
      csrf: web.csrf,
      ...REQUEST,
    })
    expect(await codes()).toBe(0)
  })

  test('no device hint: none shown; no state: none carried', async () => {
    const page = await web.get(connectPath({ deviceHint: undefined, state: undefined }))
    expect(page.status).toBe(200)
    expect(textOf(page.text)).toContain('The key will be named Chrome on my laptop . It is listed')
    expect(Object.keys(formFields(page)).sort()).toEqual(
      ['client', 'codeChallenge', 'codeChallengeMethod', 'csrf', 'label', 'redirectUri', 'scopes'].sort(),
    )
  })

  test('Raycast is named "Raycast", with raycast:// or its redirect proxy', async () => {
    for (const redirectUri of ['raycast://oauth?package_name=readlater', RAYCAST_REDIRECT]) {
      const page = await web.get(connectPath({ client: 'raycast', redirectUri }))
      expect(page.status).toBe(200)
      expect(textOf(page.text)).toContain('Connect Raycast to your account?')
      expect(textOf(page.text)).toContain(
        `you will be sent to ${redirectUri.startsWith('raycast:') ? 'raycast://oauth' : 'https://raycast.com'} .`,
      )
    }
  })

  test('the Firefox build of the extension (allizom.org redirect) is the same client', async () => {
    const page = await web.get(connectPath({ redirectUri: FIREFOX_REDIRECT }))
    expect(page.status).toBe(200)
    expect(textOf(page.text)).toContain('Connect Readlater for Chrome to your account?')
    expect(page.headers.get('content-security-policy')).toContain(
      "form-action 'self' https://0123456789abcdef0123456789abcdef01234567.extensions.allizom.org;",
    )
  })

  test('is not frameable, never cached, and its form may post here and be redirected to the client only', async () => {
    const page = await web.get(connectPath())
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain("form-action 'self' https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org;")
    const raycast = await web.get(connectPath({ client: 'raycast', redirectUri: 'raycast://oauth' }))
    expect(raycast.headers.get('content-security-policy')).toContain("form-action 'self' raycast:;")
    const proxy = await web.get(connectPath({ client: 'raycast', redirectUri: RAYCAST_REDIRECT }))
    expect(proxy.headers.get('content-security-policy')).toContain("form-action 'self' https://raycast.com;")
  })

  test('what the request carries is escaped, never markup', async () => {
    const page = await web.get(connectPath({ label: '<b>Mine</b> & "yours"', state: '"><script>x</script>' }))
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('<b>Mine</b>')
    expect(page.text).not.toContain('<script>')
    expect(page.text).toContain('<strong>&lt;b&gt;Mine&lt;/b&gt; &amp; &quot;yours&quot;</strong>')
    expect(formFields(page)).toMatchObject({ label: '<b>Mine</b> & "yours"', state: '"><script>x</script>' })
  })
})

describe('POST /connect: Allow', () => {
  test('303 to the redirect URI with code and state; the code trades for a personal key that works and shows in settings', async () => {
    const pkce = pkcePair()
    const page = await web.get(connectPath({ codeChallenge: pkce.challenge }))
    const allowed = await answer(web, page, 'allow')
    const { base, params } = answered(allowed)
    expect(base).toBe(CHROME_REDIRECT)
    expect(Object.keys(params)).toEqual(['code', 'state'])
    expect(params.code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(params.state).toBe('st-8Kq2')
    expect(allowed.headers.get('cache-control')).toBe('no-store')
    expect(allowed.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await codes()).toBe(1)

    const traded = await exchange(h, { client: 'chrome-extension', code: params.code, codeVerifier: pkce.verifier })
    expect(traded.status).toBe(200)
    expect(traded.body).toEqual({
      apiKey: expect.stringMatching(/^rlk_/),
      scopes: ['saved-items:capture', 'saved-items:read', 'account:read'],
      label: 'Chrome on my laptop',
    })
    const me = await h.call('GET', '/v1/me', { token: traded.body.apiKey })
    expect(me.status).toBe(200)
    expect(me.body.id).toBe(person.id)

    // A personal key of the person's (issued by no key or grant: a web session), with the client and device.
    const rows = await h.db.$client.execute({
      sql: 'SELECT user_id, label, scopes, connect_client, device_hint, issued_by_key_id, issued_by_grant_id FROM api_keys WHERE label = ?',
      args: ['Chrome on my laptop'],
    })
    expect(rows.rows.map((row) => ({ ...row }))).toEqual([
      {
        user_id: person.id,
        label: 'Chrome on my laptop',
        scopes: JSON.stringify(['saved-items:capture', 'saved-items:read', 'account:read']),
        connect_client: 'chrome-extension',
        device_hint: 'MacBook Air, Chrome 142',
        issued_by_key_id: null,
        issued_by_grant_id: null,
      },
    ])
    const settings = await web.get('/settings')
    expect(settings.status).toBe(200)
    const row = /<tr>(?:(?!<\/tr>)[\s\S])*Chrome on my laptop[\s\S]*?<\/tr>/.exec(settings.text)?.[0] ?? ''
    expect(textOf(row)).toContain('chrome-extension · MacBook Air, Chrome 142')
    expect(row).toContain('Revoke')
  })

  test("the redirect URI's own query is kept and the state percent-encoded; no state in, none out", async () => {
    const page = await web.get(connectPath({ client: 'raycast', redirectUri: RAYCAST_REDIRECT, state: 'a b&c=d/+%' }))
    const allowed = await answer(web, page, 'allow')
    expect(allowed.location).toMatch(
      /^https:\/\/raycast\.com\/redirect\?packageName=Extension&code=[A-Za-z0-9_-]{43}&state=a%20b%26c%3Dd%2F%2B%25$/,
    )
    expect(new URL(allowed.location!).searchParams.get('state')).toBe('a b&c=d/+%')
    const bare = await web.get(connectPath({ client: 'raycast', redirectUri: 'raycast://oauth', state: undefined }))
    const withoutState = await answer(web, bare, 'allow')
    expect(withoutState.location).toMatch(/^raycast:\/\/oauth\?code=[A-Za-z0-9_-]{43}$/)
  })

  test('a session holds every scope: a request for all of them is allowed', async () => {
    const page = await web.get(connectPath({ scopes: SCOPES.join(','), codeChallenge: RFC7636_CHALLENGE }))
    expect(page.text.match(/<li><code>/g)?.length).toBe(SCOPES.length)
    const { params } = answered(await answer(web, page, 'allow'))
    const traded = await exchange(h, { client: 'chrome-extension', code: params.code, codeVerifier: RFC7636_VERIFIER })
    expect(traded.body.scopes).toEqual([...SCOPES])
  })

  test('the code is bound to the person who allowed, not to anyone else who is signed in', async () => {
    const other = await h.user()
    const page = await web.get(connectPath())
    const otherWeb = await signedIn(other)
    await otherWeb.get(connectPath())
    const { params } = answered(await answer(web, page, 'allow'))
    const traded = await exchange(h, { client: 'chrome-extension', code: params.code, codeVerifier: RFC7636_VERIFIER })
    expect((await h.call('GET', '/v1/me', { token: traded.body.apiKey })).body.id).toBe(person.id)
  })
})

describe('POST /connect: Deny and other answers', () => {
  test('Deny: 303 to the redirect URI with error=access_denied and the state; nothing issued', async () => {
    const page = await web.get(connectPath())
    const denied = await answer(web, page, 'deny')
    expect(denied.location).toBe(`${CHROME_REDIRECT}?error=access_denied&state=st-8Kq2`)
    expect(await codes()).toBe(0)
  })

  test('no decision, or another one: 400 page, nothing issued', async () => {
    const page = await web.get(connectPath())
    for (const decision of ['', 'maybe']) {
      const reply = await answer(web, page, decision)
      expect(reply.status).toBe(400)
      expect(textOf(reply.text)).toContain('Choose "Allow" or "Deny".')
    }
    expect(await codes()).toBe(0)
  })

  test('the fields are checked again: a changed redirect URI is a page, a changed scope goes back as invalid_scope', async () => {
    const page = await web.get(connectPath())
    const elsewhere = await answer(web, page, 'allow', { redirectUri: 'https://evil.example/cb' })
    expect({ status: elsewhere.status, location: elsewhere.location }).toEqual({ status: 400, location: null })
    expect(textOf(elsewhere.text)).toContain('This connection request cannot be used')
    const wider = await answer(web, page, 'allow', { scopes: 'saved-items:read,offline_access' })
    expect(wider.location).toBe(`${CHROME_REDIRECT}?error=invalid_scope&state=st-8Kq2`)
    const relabelled = await answer(web, page, 'allow', { label: '' })
    expect(relabelled.location).toBe(`${CHROME_REDIRECT}?error=invalid_request&state=st-8Kq2`)
    expect(await codes()).toBe(0)
  })

  test('a missing or wrong CSRF field: the 403 "Form expired" page, nothing issued', async () => {
    const page = await web.get(connectPath())
    const { csrf: _, ...fields } = formFields(page)
    for (const csrf of [null, 'A'.repeat(43), '']) {
      const reply = await web.post('/connect', { ...fields, decision: 'allow' }, { csrf })
      expect(reply.status).toBe(403)
      expect(reply.location).toBeNull()
      expect(textOf(reply.text)).toContain('Form expired')
    }
    // Nor without the CSRF cookie, whatever the field says.
    web.cookies.delete('rl_csrf')
    const cookieless = await web.post('/connect', { ...fields, decision: 'allow' }, { csrf: formFields(page).csrf! })
    expect(cookieless.status).toBe(403)
    expect(await codes()).toBe(0)
  })

  test('the session lost before the answer: a page saying to start again, nothing issued', async () => {
    const page = await web.get(connectPath())
    await h.db.$client.execute('DELETE FROM web_sessions')
    for (const decision of ['allow', 'deny']) {
      const reply = await answer(web, page, decision)
      expect({ status: reply.status, location: reply.location }).toEqual({ status: 401, location: null })
      expect(textOf(reply.text)).toContain('You are no longer signed in, so nothing was connected.')
    }
    expect(await codes()).toBe(0)
  })
})

describe('GET /connect: a client or redirect URI that cannot be trusted is an error page, signed in or not', () => {
  const cases: [string, Params, string][] = [
    ['an unknown client', { client: 'firefox-extension' }, 'must be "chrome-extension" or "raycast"'],
    ['no client', { client: undefined }, 'client is missing or repeated'],
    ['client twice', { client: ['chrome-extension', 'raycast'] }, 'client is missing or repeated'],
    ['no redirect URI', { redirectUri: undefined }, 'redirectUri is missing or repeated'],
    ['redirect URI twice', { redirectUri: [CHROME_REDIRECT, CHROME_REDIRECT] }, 'redirectUri is missing or repeated'],
    ['a foreign redirect URI', { redirectUri: 'https://evil.example/cb' }, 'chromiumapp.org'],
    ['Raycast’s redirect for the extension', { redirectUri: RAYCAST_REDIRECT }, 'extensions.allizom.org'],
    [
      'a look-alike of the Firefox redirect',
      { redirectUri: FIREFOX_REDIRECT.replace('allizom.org/', 'allizom.org.evil.com/') },
      'extensions.allizom.org',
    ],
    [
      'a Firefox redirect of 41 hex digits',
      { redirectUri: FIREFOX_REDIRECT.replace('01234567.', '012345678.') },
      'extensions.allizom.org',
    ],
    ['the extension’s redirect for Raycast', { client: 'raycast' }, 'raycast.com/redirect'],
    ['the Firefox redirect for Raycast', { client: 'raycast', redirectUri: FIREFOX_REDIRECT }, 'raycast.com/redirect'],
    ['a redirect with a fragment', { redirectUri: `${CHROME_REDIRECT}#x` }, 'chromiumapp.org'],
    ['an overlong redirect URI', { redirectUri: `${CHROME_REDIRECT}?x=${'a'.repeat(2100)}` }, 'chromiumapp.org'],
    ['state twice', { state: ['a', 'b'] }, 'repeats state'],
    ['an overlong state', { state: 's'.repeat(1025) }, 'state must be at most 1024 printable ASCII characters'],
    ['a state with a line break', { state: 'a\nb' }, 'state must be'],
    ['no parameters at all', Object.fromEntries(Object.keys(REQUEST).map((k) => [k, undefined])), 'client is missing'],
  ]
  test.each(cases)('%s', async (_name, changes, message) => {
    for (const browser of [web, new WebClient(h)]) {
      const page = await browser.get(connectPath(changes))
      expect({ status: page.status, location: page.location }).toEqual({ status: 400, location: null })
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.headers.get('x-frame-options')).toBe('DENY')
      const text = textOf(page.text)
      expect(text).toContain('This connection request cannot be used')
      expect(text).toContain(message)
    }
    expect(await codes()).toBe(0)
  })

  test('a query that is not valid percent-encoding (%ff, %zz, an encoded surrogate): a page, never a 500', async () => {
    for (const bad of ['label=%ff', 'label=%zz', 'state=%ED%A0%80', 'redirectUri=%E0%A4%A', 'x=%']) {
      for (const browser of [web, new WebClient(h)]) {
        const page = await browser.get(`${connectPath({ label: undefined })}&${bad}`)
        expect({ bad, status: page.status, location: page.location }).toEqual({ bad, status: 400, location: null })
        expect(textOf(page.text)).toContain('not valid percent-encoding')
      }
    }
    expect(await codes()).toBe(0)
  })

  test('a query over 16 KiB: a page, signed in or not (a sign-in redirect would carry all of it)', async () => {
    const long = connectPath({ deviceHint: 'é'.repeat(200), label: 'é'.repeat(100), state: 's'.repeat(1024) })
    expect(long.length).toBeLessThan(16 * 1024)
    expect((await web.get(long)).status).toBe(200)
    for (const browser of [web, new WebClient(h)]) {
      const page = await browser.get(`${long}&pad=${'x'.repeat(16 * 1024)}`)
      expect({ status: page.status, location: page.location }).toEqual({ status: 400, location: null })
      expect(textOf(page.text)).toContain('The address of this request is over 16 KiB long.')
    }
  })

  test('the same rules hold for the POST: an unknown client there is a page too', async () => {
    const page = await web.get(connectPath())
    const reply = await answer(web, page, 'allow', { client: 'nope' })
    expect({ status: reply.status, location: reply.location }).toEqual({ status: 400, location: null })
    expect(await codes()).toBe(0)
  })
})

describe('GET /connect: other request problems go back to the client, for a signed-in person', () => {
  const cases: [string, Params, string][] = [
    ['an unknown scope', { scopes: 'saved-items:read,saved-items:everything' }, 'invalid_scope'],
    ['an empty scope list', { scopes: '' }, 'invalid_scope'],
    ['an empty scope in the list', { scopes: 'saved-items:read,' }, 'invalid_scope'],
    ['offline_access', { scopes: 'offline_access' }, 'invalid_scope'],
    ['no scopes', { scopes: undefined }, 'invalid_request'],
    ['scopes twice', { scopes: ['saved-items:read', 'folders:read'] }, 'invalid_request'],
    ['no challenge', { codeChallenge: undefined }, 'invalid_request'],
    ['a challenge that is not 43 base64url characters', { codeChallenge: 'abc' }, 'invalid_request'],
    ['the verifier sent as the challenge', { codeChallenge: RFC7636_VERIFIER.replace('-', '+') }, 'invalid_request'],
    ['challenge twice', { codeChallenge: [RFC7636_CHALLENGE, RFC7636_CHALLENGE] }, 'invalid_request'],
    ['no method', { codeChallengeMethod: undefined }, 'invalid_request'],
    ['the plain method', { codeChallengeMethod: 'plain' }, 'invalid_request'],
    ['no label', { label: undefined }, 'invalid_request'],
    ['a blank label', { label: '  ' }, 'invalid_request'],
    ['a label of 101 characters', { label: 'x'.repeat(101) }, 'invalid_request'],
    ['a label with a control character', { label: 'a\u0007b' }, 'invalid_request'],
    ['a device hint of 201 characters', { deviceHint: 'd'.repeat(201) }, 'invalid_request'],
    ['a device hint with a bidi override', { deviceHint: 'a\u202eb' }, 'invalid_request'],
    ['device hint twice', { deviceHint: ['a', 'b'] }, 'invalid_request'],
  ]
  test.each(cases)('%s → error=%s', async (_name, changes, error) => {
    const page = await web.get(connectPath(changes))
    expect(page.status).toBe(303)
    expect(page.location).toBe(`${CHROME_REDIRECT}?error=${error}&state=st-8Kq2`)
    expect(await codes()).toBe(0)
  })

  test('without state, the error goes back without one', async () => {
    const page = await web.get(connectPath({ scopes: 'nope', state: undefined }))
    expect(page.location).toBe(`${CHROME_REDIRECT}?error=invalid_scope`)
  })

  test.each(cases.slice(0, 3))('signed out, %s: sign in first, never a redirect to the client', async (_n, changes) => {
    const page = await new WebClient(h).get(connectPath(changes))
    expect(page.status).toBe(303)
    expect(page.location).toStartWith(`${h.config.appUrl}/sign-in?next=`)
  })
})

describe('GET /connect signed out: sign in, then back to the consent', () => {
  test('303 to {app}/sign-in?next=<the /connect address>, which sign-in follows back to the consent page', async () => {
    const password = 'correct horse battery'
    const visitor = new WebClient(h)
    await visitor.submitSignUp('connect-later@example.com', password)
    const path = connectPath({ client: 'raycast', redirectUri: 'raycast://oauth?package_name=readlater' })
    const first = await visitor.get(path)
    expect(first.status).toBe(303)
    const signIn = new URL(first.location!)
    expect(`${signIn.origin}${signIn.pathname}`).toBe(`${h.config.appUrl}/sign-in`)
    expect(signIn.searchParams.get('next')).toBe(path)
    expect(await codes()).toBe(0)

    const form = await visitor.get(signIn.pathname + signIn.search)
    expect(form.text).toContain(`name="next" value="${path.replace(/&/g, '&amp;')}"`)
    const signedInNow = await visitor.post('/sign-in', { email: 'connect-later@example.com', password, next: path })
    expect(signedInNow.location).toBe(path)
    const consent = await visitor.get(path)
    expect(consent.status).toBe(200)
    expect(textOf(consent.text)).toContain('Connect Raycast to your account?')
    const { params } = answered(await answer(visitor, consent, 'allow'))
    expect(params.state).toBe('st-8Kq2')
    expect(await codes()).toBe(1)
  })
})

describe('/connect is a page', () => {
  test('its limit is per IP, refused with a page', async () => {
    const limited = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1' } })
    const visitor = new WebClient(limited)
    expect((await visitor.get(connectPath())).status).toBe(303)
    const refused = await visitor.get(connectPath())
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toStartWith('text/html')
    expect(textOf(refused.text)).toContain('Too many attempts')
  })

  test('/connect/ and other /connect/… paths stay API paths (typed 404), /connect answers HTML', async () => {
    const api = await h.call('GET', '/connect/', { headers: { accept: 'text/html' }, unchecked: true })
    expect(api.status).toBe(404)
    expect(api.body._tag).toBe('RouteNotFoundError')
    const page = await h.call('GET', '/connect', { headers: { accept: 'text/html' }, unchecked: true })
    expect(page.status).toBe(400)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
  })
})
