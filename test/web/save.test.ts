import { describe, expect, test } from 'bun:test'
import { bookmarklet } from '../../adapters/http/web/pages/save.ts'
import { sharedLink } from '../../adapters/http/web/save-routes.ts'
import { createHarness } from '../helpers/harness.ts'
import { signedInWithKey, snapshot } from './fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

// docs/web.md#save-from-anywhere: /save for bookmarklets and the share sheet, the manifest, the icons.

const listed = async (p: Awaited<ReturnType<typeof signedInWithKey>>) =>
  (await p.h.call('GET', '/v1/saved-items', { token: p.key })).body.savedItems as any[]

describe('sharedLink()', () => {
  test.each([
    ['url=https://a.example/x&title=A', { url: 'https://a.example/x', title: 'A' }],
    ['text=Look at this https://b.example/y?z=1 great&title=', { url: 'https://b.example/y?z=1', title: null }],
    ['url=&text=https://c.example/', { url: 'https://c.example/', title: null }],
    ['text=no link here', { url: '', title: null }],
    ['url=  https://d.example/  &title=  two%0Alines  ', { url: 'https://d.example/', title: 'two lines' }],
  ])('%s', (query, expected) => {
    expect(sharedLink(new URLSearchParams(query))).toEqual(expected)
  })
})

describe('/save', () => {
  test('a GET shows the link and a "Save" button, and saves nothing', async () => {
    const p = await signedInWithKey('save-get@example.com')
    const before = await snapshot(p.h)
    const page = await p.web.get('/save?url=https%3A%2F%2Fnews.example.com%2Fstory&title=A%20%3Cb%3Estory%3C%2Fb%3E')
    expect(page.status).toBe(200)
    expect(page.text).toContain(
      '<input id="save-url" name="url" type="url" required value="https://news.example.com/story">',
    )
    expect(page.text).toContain('<strong>A &lt;b&gt;story&lt;/b&gt;</strong>')
    expect(page.text).toContain('<button type="submit">Save</button>')
    expect(await snapshot(p.h)).toBe(before)
  })

  test('the share sheet’s text: the link inside it is the one offered', async () => {
    const p = await signedInWithKey('save-share@example.com')
    const page = await p.web.get(
      '/save?title=Story&text=' + encodeURIComponent('Read this: https://share.example/a?b=1'),
    )
    expect(page.text).toContain('value="https://share.example/a?b=1"')
  })

  test('"Save" saves through the capture rules (web-companion); a second time says it was there', async () => {
    const p = await signedInWithKey('save-post@example.com')
    await p.web.get('/save?url=https://news.example.com/story')
    const saved = await p.web.post('/save', { url: 'https://news.example.com/story?utm_source=x', title: 'Story' })
    expect(saved.status).toBe(200)
    expect(textOf(saved.text)).toContain('Saved to your queue.')
    expect(saved.text).toContain(
      '<a class="button secondary" href="https://news.example.com/story?utm_source=x" rel="noopener noreferrer">Back to the page</a>',
    )
    const [item] = await listed(p)
    expect(item).toMatchObject({ normalizedUrl: 'https://news.example.com/story', captureChannel: 'web-companion' })
    await p.web.get('/save?url=https://news.example.com/story')
    const again = await p.web.post('/save', { url: 'https://news.example.com/story' })
    expect(textOf(again.text)).toContain('Already in your queue')
    expect(await listed(p)).toHaveLength(1)
  })

  test.each(['', 'javascript:alert(1)', 'not a url', 'ftp://x.example/'])(
    'url=%p: 400, the page says why, nothing saved',
    async (url) => {
      const p = await signedInWithKey(`save-bad-${Math.random()}@example.com`)
      await p.web.get('/save')
      const before = await snapshot(p.h)
      const page = await p.web.post('/save', { url })
      expect(page.status).toBe(400)
      expect(page.text).toContain('That is not a web address that can be saved')
      expect(await snapshot(p.h)).toBe(before)
    },
  )

  test('without the CSRF token: 403, nothing saved', async () => {
    const p = await signedInWithKey('save-csrf@example.com')
    const before = await snapshot(p.h)
    expect((await p.web.post('/save', { url: 'https://x.example/' }, { csrf: null })).status).toBe(403)
    expect(await snapshot(p.h)).toBe(before)
  })

  test('signed out: sign in, and come back to the same link', async () => {
    const h = await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } })
    const web = new WebClient(h)
    const page = await web.get('/save?url=https%3A%2F%2Fx.example%2F&title=X')
    expect(page.status).toBe(303)
    expect(page.location).toBe(`/sign-in?next=/save${encodeURIComponent('?url=https%3A%2F%2Fx.example%2F&title=X')}`)
  })
})

describe('the installable app', () => {
  test('a manifest with a share target to /save, its icons served, linked from every page', async () => {
    const h = await createHarness()
    const web = new WebClient(h)
    const manifest = await web.get('/manifest.webmanifest')
    expect(manifest.status).toBe(200)
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json')
    const body = JSON.parse(manifest.text)
    expect(body.share_target).toEqual({
      action: '/save',
      method: 'GET',
      params: { title: 'title', text: 'text', url: 'url' },
    })
    expect(body.start_url).toBe('/')
    for (const icon of body.icons) {
      const served = await web.get(icon.src)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe(icon.type)
    }
    const landing = await web.get('/')
    expect(landing.text).toContain('<link rel="manifest" href="/manifest.webmanifest">')
  })

  test('settings offers the bookmarklet for this server', async () => {
    const p = await signedInWithKey('bookmarklet@example.com')
    const page = await p.web.get('/settings')
    const code = bookmarklet(p.h.config.appUrl)
    expect(
      code.startsWith(`javascript:(function(){window.open('${p.h.config.appUrl.replace(/\/+$/, '')}/save?url='`),
    ).toBe(true)
    expect(page.text).toContain(
      `href="${code.replaceAll('&', '&amp;').replaceAll("'", '&#39;')}">Save to Readlater</a>`,
    )
  })
})
