import { describe, expect, test } from 'bun:test'
import { createHarness } from '../helpers/harness.ts'
import { userWithPassword } from './fixtures.ts'
import { apiKeyFor } from './reader-fixtures.ts'
import { WebClient } from './web-client.ts'

// docs/import-export.md#imports: Settings' "Import" refuses a fourth import while three are queued or
// running, saying so on the page (429), and imports nothing.

const POCKET = ['title,url,time_added,tags,status', 'One,https://example.com/one,1700000000,,unread'].join('\n')

describe('Settings › Import over the limit of imports at once', () => {
  test('the page says why and nothing is queued', async () => {
    const h = await createHarness()
    const userId = await userWithPassword(h, 'busy@example.com', 'correct horse battery')
    const key = await apiKeyFor(h, userId)
    for (let i = 0; i < 3; i++) {
      const queued = await h.call('POST', '/v1/imports', {
        token: key,
        raw: POCKET,
        headers: { 'content-type': 'text/csv' },
      })
      expect(queued.status).toBe(202)
    }
    const web = new WebClient(h)
    await web.signIn('busy@example.com', 'correct horse battery')
    await web.get('/settings')
    const form = new FormData()
    form.append('csrf', web.csrf)
    form.append('file', new File([POCKET], 'pocket.csv', { type: 'text/csv' }))
    // Multipart, as a browser sends a file: the body's own boundary names the Content-Type.
    const cookie = [...web.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await h.server.fetch(
      new Request(`${web.origin}/settings/import`, {
        method: 'POST',
        headers: { cookie, origin: web.origin },
        body: form,
      }),
      { clientIp: web.ip },
    )
    expect(response.status).toBe(429)
    expect(await response.text()).toContain(
      'Nothing was imported: 3 of your imports are queued or running, the most at once; retry when one has ended (in about 10 s).',
    )
    expect((await h.call('GET', '/v1/imports', { token: key })).body.imports).toHaveLength(3)
  })
})
