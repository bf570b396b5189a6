import { describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness.ts'

// GET /v1/saved-items/lookup (docs/api.md#lookup) and PUT /v1/saved-items/{id}/tags (docs/api.md#tags): the
// two calls the browser extension adds to the spec's API (docs/extension.md).

async function setup(): Promise<{ h: Harness; token: string }> {
  const h = await createHarness()
  return { h, token: await (await h.user()).key() }
}

async function capture(h: Harness, token: string, url: string, tags: string[] = []): Promise<any> {
  const reply = await h.call('POST', '/v1/captures', { token, body: { url, tags } })
  expect(reply.status).toBe(201)
  return reply.body.savedItem
}

const lookup = (h: Harness, token: string, url: string) =>
  h.call('GET', `/v1/saved-items/lookup?url=${encodeURIComponent(url)}`, { token })

async function changeCount(h: Harness): Promise<number> {
  const result = await h.db.$client.execute('SELECT count(*) AS n FROM changes')
  return Number(result.rows[0]!.n)
}

describe('GET /v1/saved-items/lookup', () => {
  test('finds the item by the normalization of the URL, as a capture would', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.org/articles/one')
    for (const url of [
      'https://example.org/articles/one',
      'https://WWW.Example.org/articles/one/?utm_source=feed#comments',
      '  https://example.org:443/articles/./one  ',
    ]) {
      const reply = await lookup(h, token, url)
      expect(reply.status).toBe(200)
      expect(reply.body.id).toBe(item.id)
      expect(reply.body.normalizedUrl).toBe('https://example.org/articles/one')
    }
  })

  test('a page not saved is 404 SavedItemNotFoundError naming the normalized URL', async () => {
    const { h, token } = await setup()
    await capture(h, token, 'https://example.org/saved')
    const reply = await lookup(h, token, 'https://www.example.org/other/?fbclid=1')
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({
      _tag: 'SavedItemNotFoundError',
      message: 'No saved item for https://example.org/other',
      savedItemId: 'https://example.org/other',
    })
  })

  test('what a capture refuses is 400 InvalidUrlError; no url is 400 ValidationError', async () => {
    const { h, token } = await setup()
    for (const url of ['ftp://example.org/', 'not a url', 'https://user:pw@example.org/', 'x'.repeat(9000)]) {
      const reply = await lookup(h, token, url)
      expect(reply.status).toBe(400)
      expect(reply.body._tag).toBe('InvalidUrlError')
    }
    const missing = await h.call('GET', '/v1/saved-items/lookup', { token })
    expect(missing.status).toBe(400)
    expect(missing.body._tag).toBe('ValidationError')
  })

  test("another person's item is not found", async () => {
    const { h, token } = await setup()
    await capture(h, token, 'https://example.org/mine')
    const other = await (await h.user()).key()
    const reply = await lookup(h, other, 'https://example.org/mine')
    expect(reply.status).toBe(404)
    expect(reply.body._tag).toBe('SavedItemNotFoundError')
  })

  test('needs saved-items:read', async () => {
    const { h } = await setup()
    const token = await (await h.user()).key(['saved-items:capture'])
    const reply = await lookup(h, token, 'https://example.org/')
    expect(reply.status).toBe(403)
    expect(reply.headers.get('www-authenticate')).toContain('scope="saved-items:read"')
  })
})

describe('PUT /v1/saved-items/{id}/tags', () => {
  test('replaces the set: adds, removes, drops duplicates, and [] clears', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.org/t', ['ai', 'tools'])
    h.clock.advance(1000)
    const set = await h.call('PUT', `/v1/saved-items/${item.id}/tags`, {
      token,
      body: { tags: ['security', 'ai', 'security'] },
    })
    expect(set.status).toBe(200)
    expect(set.body.tags).toEqual(['security', 'ai'])
    expect(set.body.updatedAt > item.updatedAt).toBe(true)
    // Read state and the time saved are not touched, unlike a recapture.
    expect(set.body.lastSavedAt).toBe(item.lastSavedAt)
    expect(set.body.isRead).toBe(false)

    const cleared = await h.call('PUT', `/v1/saved-items/${item.id}/tags`, { token, body: { tags: [] } })
    expect(cleared.status).toBe(200)
    expect(cleared.body.tags).toEqual([])
    const listed = await h.call('GET', '/v1/saved-items', { token })
    expect(listed.body.savedItems[0].tags).toEqual([])
  })

  test('the same set in another order changes nothing: no updatedAt, no change in the feed', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.org/same', ['ai', 'design'])
    const before = await changeCount(h)
    h.clock.advance(1000)
    const reply = await h.call('PUT', `/v1/saved-items/${item.id}/tags`, { token, body: { tags: ['design', 'ai'] } })
    expect(reply.status).toBe(200)
    expect(reply.body.tags).toEqual(['ai', 'design'])
    expect(reply.body.updatedAt).toBe(item.updatedAt)
    expect(await changeCount(h)).toBe(before)

    // A real change is in the feed.
    await h.call('PUT', `/v1/saved-items/${item.id}/tags`, { token, body: { tags: ['design'] } })
    expect(await changeCount(h)).toBe(before + 1)
  })

  test('bad input writes nothing: unknown tag, missing field, extra field', async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.org/bad', ['ai'])
    for (const body of [{ tags: ['ai', 'cooking'] }, {}, { tags: ['ai'], extra: 1 }, { tags: 'ai' }, { tags: null }]) {
      const reply = await h.call('PUT', `/v1/saved-items/${item.id}/tags`, { token, body })
      expect(reply.status).toBe(400)
      expect(reply.body._tag).toBe('ValidationError')
    }
    const after = await lookup(h, token, 'https://example.org/bad')
    expect(after.body.tags).toEqual(['ai'])
    expect(after.body.updatedAt).toBe(item.updatedAt)
  })

  test("a missing or another person's item is 404", async () => {
    const { h, token } = await setup()
    const item = await capture(h, token, 'https://example.org/owned', ['ai'])
    const other = await (await h.user()).key()
    const foreign = await h.call('PUT', `/v1/saved-items/${item.id}/tags`, { token: other, body: { tags: [] } })
    expect(foreign.status).toBe(404)
    expect(foreign.body).toEqual({
      _tag: 'SavedItemNotFoundError',
      message: `No saved item with id "${item.id}"`,
      savedItemId: item.id,
    })
    expect((await lookup(h, token, 'https://example.org/owned')).body.tags).toEqual(['ai'])
  })
})
