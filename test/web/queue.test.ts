import { describe, expect, test } from 'bun:test'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { signedInWithKey, snapshot } from './fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

const env = { IP_RATE_LIMIT_MAX: '1000' }
const signedIn = (email: string, harness?: Harness) => signedInWithKey(email, harness)

const itemRows = async (h: Harness) =>
  (await h.db.$client.execute('SELECT * FROM saved_items ORDER BY last_saved_at')).rows as never as Record<
    string,
    unknown
  >[]

describe('GET /', () => {
  test('signed out: a short landing page linking to sign in and create account', async () => {
    const h = await createHarness({ env })
    const page = await new WebClient(h).get('/')
    expect(page.status).toBe(200)
    expect(page.text).toContain('<a class="button" href="/sign-in">Sign in</a>')
    expect(page.text).toContain('<a class="button secondary" href="/sign-up">Create account</a>')
    expect(page.text).not.toContain('action="/queue/capture"')
  })

  test('signed in: the queue with a "URL" field and a "Save" button', async () => {
    const { web } = await signedIn('queue@example.com')
    const page = web.last!
    expect(page.status).toBe(200)
    expect(page.text).toContain('<label for="capture-url">URL</label>')
    expect(page.text).toContain('<button type="submit">Save</button>')
    expect(textOf(page.text)).toContain('Nothing here yet.')
  })
})

describe('capture from the web page', () => {
  test('saves through the same core rules as the API, with captureChannel web-companion', async () => {
    const { h, web, key } = await signedIn('capture@example.com')
    const page = await web.post('/queue/capture', { url: '  https://www.Example.com/post/?utm_source=x&b=2&a=1#top ' })
    expect(page.status).toBe(303)
    expect(page.location).toBe('/?done=saved')
    const [row] = await itemRows(h)
    expect(row).toMatchObject({
      original_url: 'https://www.Example.com/post/?utm_source=x&b=2&a=1#top',
      normalized_url: 'https://example.com/post?a=1&b=2',
      host: 'example.com',
      capture_channel: 'web-companion',
      is_read: 0,
      enrichment_status: 'pending',
    })
    const api = await h.call('GET', '/v1/saved-items', { token: key })
    expect(api.body.savedItems[0]).toMatchObject({
      normalizedUrl: 'https://example.com/post?a=1&b=2',
      captureChannel: 'web-companion',
    })
    const list = await web.get('/?done=saved')
    expect(textOf(list.text)).toContain('Saved.')
    // Pending: the URL is the title, and opening it (docs/web.md#queue) goes to the original.
    const id = String(row!.id)
    expect(list.text).toContain(
      `<a class="title" href="/queue/items/${id}/open" target="_blank" rel="noreferrer">https://www.Example.com/post/?utm_source=x&amp;b=2&amp;a=1#top</a>`,
    )
    expect(textOf(list.text)).toContain('example.com · saved 2026-11-22 10:00 UTC')
    const opened = await web.get(`/queue/items/${id}/open`)
    expect(opened.status).toBe(303)
    expect(opened.location).toBe('https://www.example.com/post/?utm_source=x&b=2&a=1#top')
  })

  test('saving a known URL again updates the one item and puts it back in the queue', async () => {
    const { h, web } = await signedIn('recapture@example.com')
    await web.post('/queue/capture', { url: 'https://example.com/a' })
    const id = String((await itemRows(h))[0]!.id)
    await web.post(`/queue/items/${id}/read-state`, { isRead: 'true' })
    h.clock.advance(1000)
    await web.post('/queue/capture', { url: 'https://example.com/a/' })
    const rows = await itemRows(h)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ id, is_read: 0, last_saved_at: '2026-11-22T10:00:01.000Z' })
  })

  test.each(['', 'not a url', 'ftp://example.com/file', 'javascript:alert(1)', 'https://user:pw@example.com/'])(
    'url=%p: the page comes back with 400 and an error, the input kept, nothing saved',
    async (url) => {
      const { h, web } = await signedIn(`bad-${Math.random()}@example.com`)
      const before = await snapshot(h)
      const page = await web.post('/queue/capture', { url })
      expect(page.status).toBe(400)
      expect(page.text).toContain('Enter a full web address starting with http:// or https://.')
      expect(page.text).toContain(`value="${url.replaceAll('&', '&amp;')}"`)
      expect(await snapshot(h)).toBe(before)
    },
  )

  test('signed out, capturing sends the person to sign in and saves nothing', async () => {
    const h = await createHarness({ env })
    const web = new WebClient(h)
    await web.get('/sign-in')
    const page = await web.post('/queue/capture', { url: 'https://example.com/' })
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in')
    expect(await countRows(h.db, 'saved_items')).toBe(0)
  })
})

describe('the list', () => {
  test('newest first, title when known, read state toggled by a form', async () => {
    const { h, web } = await signedIn('list@example.com')
    await web.post('/queue/capture', { url: 'https://first.example/' })
    h.clock.advance(1000)
    await web.post('/queue/capture', { url: 'https://second.example/' })
    await h.db.$client.execute("UPDATE saved_items SET title = 'The second one' WHERE host = 'second.example'")
    let page = await web.get('/')
    const text = textOf(page.text)
    expect(text.indexOf('The second one')).toBeLessThan(text.indexOf('https://first.example/'))
    const first = (await itemRows(h)).find((r) => r.host === 'first.example')!
    const toggled = await web.post(`/queue/items/${first.id}/read-state`, { isRead: 'true', return: '/?state=all' })
    expect(toggled.status).toBe(303)
    expect(toggled.location).toBe('/?state=all')
    expect((await itemRows(h)).find((r) => r.id === first.id)!.is_read).toBe(1)
    // The queue opens on Unread: the read one is under All and Read.
    page = await web.get('/')
    expect(textOf(page.text)).not.toContain('first.example')
    page = await web.get('/?state=all')
    expect(textOf(page.text)).toMatch(/first\.example · saved [^·]+ · Read/)
    expect(page.text).toContain('name="isRead" value="false">Mark unread</button>')
    expect(textOf((await web.get('/?state=read')).text)).toContain('first.example')
    await web.post(`/queue/items/${first.id}/read-state`, { isRead: 'false' })
    expect((await itemRows(h)).find((r) => r.id === first.id)!.is_read).toBe(0)
  })

  test('a read-state value other than true/false is refused with 400 and changes nothing', async () => {
    const { h, web } = await signedIn('badstate@example.com')
    await web.post('/queue/capture', { url: 'https://example.com/x' })
    const id = String((await itemRows(h))[0]!.id)
    const before = await snapshot(h)
    expect((await web.post(`/queue/items/${id}/read-state`, { isRead: 'yes' })).status).toBe(400)
    expect(await snapshot(h)).toBe(before)
  })

  test('the folder filter shows one folder, or the items in no folder; an unknown folder shows everything', async () => {
    const { h, web, key } = await signedIn('folders@example.com')
    const folder = (await h.call('POST', '/v1/folders', { token: key, body: { name: 'Work <stuff>' } })).body
    await web.post('/queue/capture', { url: 'https://in-folder.example/' })
    await web.post('/queue/capture', { url: 'https://loose.example/' })
    const inFolder = (await itemRows(h)).find((r) => r.host === 'in-folder.example')!
    expect(
      (await h.call('PUT', `/v1/saved-items/${inFolder.id}/folder`, { token: key, body: { folderId: folder.id } }))
        .status,
    ).toBe(200)

    const filtered = await web.get(`/?folder=${folder.id}`)
    expect(filtered.text).toContain('in-folder.example')
    expect(filtered.text).not.toContain('loose.example')
    expect(filtered.text).toContain(
      `<a href="/?folder=${folder.id}" aria-current="page">Work &lt;stuff&gt; <span class="count">1</span></a>`,
    )
    expect(filtered.text).toContain(`<input type="hidden" name="return" value="/?folder=${folder.id}"></form>`)
    // Filters and sorts keep the chosen folder.
    expect(filtered.text).toContain(`<a href="/?state=read&amp;folder=${folder.id}">Read</a>`)
    expect(filtered.text).toContain(`<a href="/?sort=title&amp;folder=${folder.id}">Title</a>`)
    const back = await web.post(`/queue/items/${inFolder.id}/read-state`, {
      isRead: 'true',
      return: `/?folder=${folder.id}`,
    })
    expect(back.location).toBe(`/?folder=${folder.id}`)

    const none = await web.get('/?folder=none')
    expect(none.text).toContain('loose.example')
    expect(none.text).not.toContain('in-folder.example')
    expect(none.text).toContain(
      '<a href="/?folder=none" aria-current="page">No folder <span class="count">1</span></a>',
    )
    expect(none.text).toContain('<a href="/">All folders <span class="count">2</span></a>')

    const unknown = await web.get('/?folder=01900000-0000-7000-8000-000000000000&state=all')
    expect(unknown.status).toBe(200)
    expect(unknown.text).toContain('loose.example')
    expect(unknown.text).toContain('in-folder.example')
  })

  test('a hostile title and URL are shown as text', async () => {
    const { h, web } = await signedIn('xss@example.com')
    await web.post('/queue/capture', { url: 'https://example.com/?q="><script>alert(1)</script>' })
    await h.db.$client.execute(`UPDATE saved_items SET title = '<script>alert("title")</script>'`)
    const page = await web.get('/')
    expect(page.text).not.toContain('<script>')
    expect(page.text).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;</a>')
    const id = String((await itemRows(h))[0]!.id)
    // The original is reached through the open redirect: a header, never markup.
    const opened = await web.get(`/queue/items/${id}/open`)
    expect(opened.location).toBe('https://example.com/?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E')
  })

  test("another person's items are invisible and cannot be toggled (404, nothing changes)", async () => {
    const { h, web: mine } = await signedIn('items-owner@example.com')
    await mine.post('/queue/capture', { url: 'https://private.example/secret' })
    const id = String((await itemRows(h))[0]!.id)
    const { web: theirs } = await signedIn('items-intruder@example.com', h)
    expect(theirs.last!.text).not.toContain('private.example')
    const before = await snapshot(h)
    const page = await theirs.post(`/queue/items/${id}/read-state`, { isRead: 'true' })
    expect(page.status).toBe(404)
    expect(await snapshot(h)).toBe(before)
  })
})

describe('robustness', () => {
  test('a form over 64 KiB gets a 413 page, not a 5xx', async () => {
    const { h, web } = await signedIn('big@example.com')
    const page = await web.post('/queue/capture', { url: 'https://example.com/' + 'a'.repeat(70_000) })
    expect(page.status).toBe(413)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await countRows(h.db, 'saved_items')).toBe(0)
  })

  test('the queue script parses, is served with its version for good, and revalidated at any other address', async () => {
    const { web } = await signedIn('script@example.com')
    const src = /<script src="(\/assets\/queue\.js\?v=(\w+))" defer><\/script>/.exec(web.last!.text)
    expect(src).not.toBeNull()
    const served = await web.get(src![1]!)
    expect(served.status).toBe(200)
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    // A syntax error would leave the page without its enhancements; parsing it (without running it) says so.
    expect(() => new Function(served.text)).not.toThrow()
    expect((await web.get('/assets/queue.js')).headers.get('cache-control')).toBe('no-cache')
  })

  test('web pages are not part of the OpenAPI document', async () => {
    const h = await createHarness({ env })
    const doc = (await h.call('GET', '/openapi.json', { unchecked: true })).body
    for (const path of ['/', '/sign-in', '/sign-up', '/sign-out', '/settings', '/queue/capture'])
      expect(Object.keys(doc.paths)).not.toContain(path)
  })
})
