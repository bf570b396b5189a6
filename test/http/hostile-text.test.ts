import { describe, expect, test } from 'bun:test'
import { countRows, createHarness } from '../helpers/harness.ts'
import { authorizeBody } from '../connect/connect-fixtures.ts'
import { send } from '../oauth/oauth-helpers.ts'

// Text that could smuggle line breaks into stored URLs or disguise a name shown to a person
// (docs/api.md#hostile-input).

describe('captured URLs', () => {
  test('CR, LF and tabs inside a URL are removed from originalUrl, as the URL parser removes them', async () => {
    const h = await createHarness()
    const key = await (await h.user()).key()
    const reply = await h.call('POST', '/v1/captures', {
      token: key,
      body: { url: 'https://example.com/a\r\nSet-Cookie: x=1\t/b' },
    })
    expect(reply.status).toBe(201)
    expect(reply.body.savedItem.originalUrl).toBe('https://example.com/aSet-Cookie:%20x=1/b'.replace('%20', ' '))
    expect(reply.body.savedItem.originalUrl).not.toMatch(/[\r\n\t]/)
    expect(reply.body.savedItem.normalizedUrl).toBe('https://example.com/aSet-Cookie:%20x=1/b')
    const stored = await h.db.$client.execute('SELECT original_url FROM saved_items')
    expect(String(stored.rows[0]!.original_url)).not.toMatch(/[\r\n\t]/)
  })
})

describe('names shown to people', () => {
  test('a connect label or device hint with a bidi override or zero-width character is refused, nothing written', async () => {
    const h = await createHarness()
    const key = await (await h.user()).key()
    for (const override of [
      { label: 'Chrome\u202egnp.exe' },
      { label: 'Chr\u200bome' },
      { deviceHint: 'Mac\u2066Book' },
    ]) {
      const reply = await h.call('POST', '/connect/authorize', { token: key, body: authorizeBody(override) })
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual({
        _tag: 'ValidationError',
        message: expect.stringMatching(/must not contain control, invisible or bidirectional characters \(found U\+/),
      })
    }
    expect(await countRows(h.db, 'connect_codes')).toBe(0)
  })

  test('a client registration whose name hides a zero-width or bidi character is refused, nothing written', async () => {
    const h = await createHarness()
    for (const name of ['Claude\u200bDesktop', 'Cursor\u202e', 'VS\u2060Code']) {
      const reply = await send(h, 'POST', '/api/auth/oauth2/register', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1/cb'] }),
      })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({
        error: 'invalid_client_metadata',
        error_description: expect.stringContaining('invisible or bidirectional'),
      })
    }
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })

  test('a connect label or device hint made only of Hangul fillers or blanks is refused, nothing written', async () => {
    const h = await createHarness()
    const key = await (await h.user()).key()
    for (const [field, text] of [
      ['label', '\u3164'],
      ['label', '\u3164\u2800 '],
      ['deviceHint', '\u034f\uffa0'],
    ] as const) {
      const reply = await h.call('POST', '/connect/authorize', { token: key, body: authorizeBody({ [field]: text }) })
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual({
        _tag: 'ValidationError',
        message: `body.${field}: must contain at least one visible character`,
      })
    }
    expect(await countRows(h.db, 'connect_codes')).toBe(0)
  })

  test('a client registration whose name shows nothing is refused, nothing written', async () => {
    const h = await createHarness()
    for (const name of ['\u3164', '\u3164\u2800 ', '\u115f\u1160', '\u034f']) {
      const reply = await send(h, 'POST', '/api/auth/oauth2/register', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1/cb'] }),
      })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({
        error: 'invalid_client_metadata',
        error_description: 'client_name must contain at least one visible character',
      })
    }
    expect(await countRows(h.db, 'oauth_clients')).toBe(0)
  })
})
