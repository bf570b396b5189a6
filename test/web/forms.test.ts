import { describe, expect, test } from 'bun:test'
import { safeNext, signInPath } from '../../adapters/http/web/forms.ts'
import { emailProblem } from '../../core/auth/email.ts'
import { createHarness } from '../helpers/harness.ts'

const APP = 'https://read.example.com'

describe('safeNext()', () => {
  test.each([
    ['/', '/'],
    ['/settings', '/settings'],
    [
      '/api/auth/oauth2/authorize?client_id=a&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&state=%2F%2Fx',
      '/api/auth/oauth2/authorize?client_id=a&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&state=%2F%2Fx',
    ],
    ['/a//b', '/a//b'],
    ['/?next=//evil.com', '/?next=//evil.com'],
  ])('keeps the same-site path %p as is', (next, expected) => {
    expect(safeNext(next, APP)).toBe(expected)
  })

  test.each([
    null,
    undefined,
    '',
    '//evil.com',
    '///evil.com',
    '/\\evil.com',
    '\\\\evil.com',
    'https://evil.com',
    'http://read.example.com/x',
    'evil.com',
    'javascript:alert(1)',
    '/\t/evil.com',
    '/\n/evil.com',
    '/ /evil.com',
    ' /settings',
    '/\u0000',
  ])('sends %p to /', (next) => {
    expect(safeNext(next, APP)).toBe('/')
  })
})

describe('signInPath()', () => {
  test('keeps slashes readable and encodes the rest of next', () => {
    expect(signInPath('/settings')).toBe('/sign-in?next=/settings')
    expect(signInPath('/x?a=1&b=%2F')).toBe('/sign-in?next=/x%3Fa%3D1%26b%3D%252F')
    expect(signInPath('/')).toBe('/sign-in')
  })
})

describe('emailProblem()', () => {
  test.each([
    ['a@example.com', null],
    ['', 'Enter your email address.'],
    ['a@b', 'That does not look like an email address.'],
    ['a b@example.com', 'That does not look like an email address.'],
    [`${'a'.repeat(250)}@example.com`, 'That does not look like an email address.'],
  ])('%p → %p', (email, problem) => {
    expect(emailProblem(email)).toBe(problem)
  })
})

describe('unknown addresses', () => {
  test('a browser asking for an unknown page gets an HTML 404 page; programs and API paths keep the typed JSON', async () => {
    const h = await createHarness()
    const html = { accept: 'text/html,application/xhtml+xml' }
    const page = await h.server.fetch(new Request('http://localhost:3000/no-such-page', { headers: html }))
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(await page.text()).toContain('Page not found')
    const program = await h.server.fetch(new Request('http://localhost:3000/no-such-page'))
    expect(program.status).toBe(404)
    expect(await program.json()).toEqual({ _tag: 'RouteNotFoundError', message: 'No route for /no-such-page' })
    const api = await h.server.fetch(new Request('http://localhost:3000/v1/nothing', { headers: html }))
    expect(await api.json()).toEqual({ _tag: 'RouteNotFoundError', message: 'No route for /v1/nothing' })
  })
})
