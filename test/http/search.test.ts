import { describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness.ts'

// docs/search.md: GET /v1/search over REST — matching, ranking, snippets, filters, paging, errors, isolation,
// and the index kept in step with every change to an item or its article.

interface World {
  h: Harness
  key: string
  userId: string
  /** Saves a URL, then sets columns as enrichment would (through SQL, so the index triggers run). */
  item(url: string, fields?: Record<string, string | number | null>, article?: string): Promise<string>
  search(q: string, extra?: string): Promise<{ status: number; body: any; headers: Headers }>
  ids(q: string): Promise<string[]>
}

async function world(h?: Harness): Promise<World> {
  const harness = h ?? (await createHarness())
  const user = await harness.user()
  const key = await user.key()
  const w: World = {
    h: harness,
    key,
    userId: user.id,
    async item(url, fields = {}, article) {
      harness.clock.advance(1000)
      const reply = await harness.call('POST', '/v1/captures', { token: key, body: { url } })
      expect(reply.status).toBe(201)
      const id = reply.body.savedItem.id as string
      const columns = Object.keys(fields)
      if (columns.length > 0)
        await harness.db.$client.execute({
          sql: `UPDATE saved_items SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`,
          args: [...columns.map((c) => fields[c]!), id],
        })
      if (article !== undefined)
        await harness.db.$client.execute({
          sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 1, '<p></p>', ?, '2026-01-01T00:00:00.000Z')",
          args: [id, article],
        })
      return id
    },
    async search(q, extra = '') {
      const reply = await harness.call('GET', `/v1/search?q=${encodeURIComponent(q)}${extra}`, { token: key })
      return { status: reply.status, body: reply.body, headers: reply.headers }
    },
    async ids(q) {
      const reply = await w.search(q)
      expect(reply.status).toBe(200)
      return reply.body.results.map((result: any) => result.savedItem.id)
    },
  }
  return w
}

describe('matching', () => {
  test('words must all match, in any case and any accents, over every indexed field and the article', async () => {
    const w = await world()
    const title = await w.item('https://example.com/a', { title: 'Généric Types in TypeScript' })
    const description = await w.item('https://example.com/b', { description: 'all about generic types' })
    const body = await w.item('https://example.com/c', {}, 'The article explains GENERIC types at length.')
    const source = await w.item('https://example.com/d', { source_name: 'Generic Types Weekly' })
    await w.item('https://example.com/e', { title: 'generic only' })
    expect((await w.ids('generic types')).sort()).toEqual([title, description, body, source].sort())
    expect(await w.ids('GÉNÉRIC TYPESCRIPT')).toEqual([title])
  })

  test('the last word matches as a prefix; the others only whole', async () => {
    const w = await world()
    const ts = await w.item('https://example.com/ts', { title: 'TypeScript tips' })
    expect(await w.ids('typesc')).toEqual([ts])
    expect(await w.ids('tips typesc')).toEqual([ts])
    expect(await w.ids('typesc tips')).toEqual([])
    expect(await w.ids('tip typescript')).toEqual([])
  })

  test('a long prefix finds every word it starts (expanded from the vocabulary, or FTS5 past 64 of them)', async () => {
    const w = await world()
    const kestrels = [
      await w.item('https://example.com/k1', { title: 'Kestrel sightings' }),
      await w.item('https://example.com/k2', { title: 'Two kestrels' }),
      await w.item('https://example.com/k3', { title: 'Kestrelling at dawn' }),
    ]
    expect((await w.ids('kestr')).sort()).toEqual([...kestrels].sort())
    // A whole word typed last: itself and every longer word it starts.
    expect((await w.ids('kestrel')).sort()).toEqual([...kestrels].sort())
    expect(await w.ids('kestrels')).toEqual([kestrels[1]!])
    expect(await w.ids('kestrx')).toEqual([])
    const many: string[] = []
    for (let i = 0; i < 70; i++) many.push(await w.item(`https://example.com/m${i}`, { title: `alphaword${i}x` }))
    const found = await w.search('alphawo', '&limit=100')
    expect(found.body.results.map((r: any) => r.savedItem.id).sort()).toEqual([...many].sort())
  })

  test('a phrase matches the words together; -word and -"phrase" exclude; OR takes either', async () => {
    const w = await world()
    const safe = await w.item('https://example.com/1', { title: 'Memory safety in Rust' })
    const apart = await w.item('https://example.com/2', { title: 'Safety first: memory tricks' })
    const go = await w.item('https://example.com/3', { title: 'Go memory model' })
    expect(await w.ids('"memory safety"')).toEqual([safe])
    expect((await w.ids('memory -rust')).sort()).toEqual([apart, go].sort())
    expect((await w.ids('memory -"memory safety"')).sort()).toEqual([apart, go].sort())
    expect((await w.ids('rust OR go')).sort()).toEqual([safe, go].sort())
  })

  test('the URL, host and site name are searchable', async () => {
    const w = await world()
    const item = await w.item('https://blog.example.org/posts/zettelkasten-method', { site_name: 'Thinking Notes' })
    expect(await w.ids('zettelkasten')).toEqual([item])
    expect(await w.ids('thinking notes')).toEqual([item])
    expect(await w.ids('blog example org')).toEqual([item])
  })
})

describe('ranking and snippets', () => {
  test('a title match ranks above an article match; ties are newest first', async () => {
    const w = await world()
    const inBody = await w.item(
      'https://example.com/body',
      {},
      `${'filler words here. '.repeat(20)} Kubernetes appears once.`,
    )
    const older = await w.item('https://example.com/t1', { title: 'Kubernetes' })
    const newer = await w.item('https://example.com/t2', { title: 'Kubernetes' })
    expect(await w.ids('kubernetes')).toEqual([newer, older, inBody])
  })

  test('equal scores are newest saved first across pages, whatever order the items were indexed in', async () => {
    const w = await world()
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push(await w.item(`https://example.com/tie${i}`, { title: 'Kestrel' }))
    // Saved again: the newest now, though indexed among the first.
    for (const i of [2, 7]) {
      w.h.clock.advance(1000)
      const reply = await w.h.call('POST', '/v1/captures', {
        token: w.key,
        body: { url: `https://example.com/tie${i}` },
      })
      expect(reply.status).toBe(200)
    }
    const expected = [7, 2, 11, 10, 9, 8, 6, 5, 4, 3, 1, 0].map((i) => ids[i]!)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const reply = await w.search('kestrel', `&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      expect(reply.status).toBe(200)
      seen.push(...reply.body.results.map((r: any) => r.savedItem.id))
      const link = reply.headers.get('link')
      cursor = link ? new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!).searchParams.get('cursor') : null
    } while (cursor)
    expect(seen).toEqual(expected)
  })

  test('snippets mark the matched words with « », stay within 200 characters, and are null for filters only', async () => {
    const w = await world()
    const long = `${'An introduction that goes on for a while. '.repeat(30)}Here the quantum computing part starts. ${'More words after it. '.repeat(30)}`
    await w.item('https://example.com/q', { title: 'Notes' }, long)
    const reply = await w.search('quantum computing')
    const snippet = reply.body.results[0].snippet as string
    expect(snippet).toContain('«quantum» «computing»')
    expect(snippet.length).toBeLessThanOrEqual(200)
    // The index also holds the person's id (to keep every search to their own rows); no snippet shows it.
    expect(snippet).not.toContain(w.userId.replaceAll('-', ''))
    const filtersOnly = await w.search('is:unread')
    expect(filtersOnly.body.results[0].snippet).toBeNull()
    expect(filtersOnly.body.results[0].savedItem.originalUrl).toBe('https://example.com/q')
  })
})

describe('filters', () => {
  test('each filter narrows the words; a query of filters only lists newest first', async () => {
    const w = await world()
    const folder = (await w.h.call('POST', '/v1/folders', { token: w.key, body: { name: 'Reading List' } })).body.id
    const a = await w.item('https://news.example.com/a', {
      title: 'shared word',
      type: 'video',
      tags: '["ai"]',
      is_read: 1,
      folder_id: folder,
      enrichment_status: 'enriched',
      last_saved_at: '2026-03-10T12:00:00.000Z',
    })
    const b = await w.item('https://example.com/b', {
      title: 'shared word',
      type: 'article',
      tags: '["security"]',
      enrichment_status: 'failed',
      last_saved_at: '2026-05-01T00:00:00.000Z',
    })
    const c = await w.item('https://other.org/c', { title: 'shared word', last_saved_at: '2026-06-01T00:00:00.000Z' })
    const cases: [string, string[]][] = [
      ['shared is:read', [a]],
      ['shared is:unread', [c, b]],
      ['shared type:video', [a]],
      ['shared tag:security', [b]],
      ['shared site:example.com', [b, a]],
      ['shared site:news.example.com', [a]],
      ['shared site:www.other.org', [c]],
      ['shared folder:"reading list"', [a]],
      ['shared folder:none', [c, b]],
      ['shared status:failed', [b]],
      ['shared status:pending', [c]],
      ['shared after:2026-05-01', [c, b]],
      ['shared before:2026-05-01', [a]],
      ['after:2026-03-01 before:2026-06-01', [b, a]],
      ['is:unread', [c, b]],
      ['is:unread -other', [b]],
    ]
    for (const [q, expected] of cases) expect({ q, ids: await w.ids(q) }).toEqual({ q, ids: expected })
  })
})

describe('paging', () => {
  test('limit and the Link header page through every result once, in order', async () => {
    const w = await world()
    const all: string[] = []
    for (let i = 0; i < 7; i++) all.unshift(await w.item(`https://example.com/p${i}`, { title: 'pageable' }))
    const seen: string[] = []
    let reply = await w.search('pageable', '&limit=3')
    for (;;) {
      seen.push(...reply.body.results.map((r: any) => r.savedItem.id))
      const link = reply.headers.get('link')
      if (!link) break
      const next = new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!)
      expect(next.searchParams.get('q')).toBe('pageable')
      reply = await w.search('pageable', `&limit=3&cursor=${encodeURIComponent(next.searchParams.get('cursor')!)}`)
    }
    expect(seen).toEqual(all)
  })

  test('a cursor of another query, a bad cursor, and limits outside 1–100: 400 ValidationError', async () => {
    const w = await world()
    for (let i = 0; i < 3; i++) await w.item(`https://example.com/c${i}`, { title: 'cursor test' })
    const first = await w.search('cursor', '&limit=1')
    const cursor = new URL(/<([^>]+)>/.exec(first.headers.get('link')!)![1]!).searchParams.get('cursor')!
    const other = await w.search('test', `&cursor=${encodeURIComponent(cursor)}`)
    expect(other.status).toBe(400)
    expect(other.body.message).toBe('cursor: made for another query; send the same q')
    for (const extra of ['&cursor=nonsense', '&limit=0', '&limit=101', '&limit=ten']) {
      const reply = await w.search('cursor', extra)
      expect({ extra, status: reply.status, tag: reply.body._tag }).toEqual({
        extra,
        status: 400,
        tag: 'ValidationError',
      })
    }
  })
})

describe('refusals name the problem', () => {
  test.each([
    ['', 'q: must not be empty'],
    ['   ', 'q: must not be empty'],
    ['type:podcast', 'q: type:"podcast" is not a filter value; expected type:article|video|website|repository'],
    ['after:yesterday', 'q: after:"yesterday" is not a filter value; expected after:YYYY-MM-DD'],
    ['folder:Nowhere', 'q: folder:"Nowhere" names no folder'],
    ['-only -exclusions', 'q: needs a word to find, not only words to leave out'],
  ])('%j', async (q, message) => {
    const w = await world()
    const reply = await w.search(q)
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ _tag: 'ValidationError', message })
  })

  test('no q at all: 400', async () => {
    const w = await world()
    const reply = await w.h.call('GET', '/v1/search', { token: w.key })
    expect(reply.status).toBe(400)
    expect(reply.body._tag).toBe('ValidationError')
  })
})

test("isolation: two people sharing words never see or page through each other's items", async () => {
  const h = await createHarness()
  const ann = await world(h)
  const bob = await world(h)
  const mine = await ann.item('https://example.com/ann', { title: 'shared secret plans' }, 'shared secret article')
  const folder = (await h.call('POST', '/v1/folders', { token: bob.key, body: { name: 'Plans' } })).body.id
  for (let i = 0; i < 5; i++)
    await bob.item(`https://example.com/bob${i}`, { title: 'shared secret plans', folder_id: folder })
  expect(await ann.ids('shared secret')).toEqual([mine])
  expect(await ann.ids('is:unread')).toEqual([mine])
  expect(await ann.ids('plans site:example.com')).toEqual([mine])
  // Bob's folder name means nothing to Ann.
  expect((await ann.search('folder:Plans')).status).toBe(400)
  expect((await bob.ids('shared')).length).toBe(5)
  expect(await bob.ids('shared')).not.toContain(mine)
})

describe('the index keeps in step with the items', () => {
  test('enrichment, a new article, a replaced article, a recapture and a delete', async () => {
    const w = await world()
    const id = await w.item('https://example.com/evolving')
    expect(await w.ids('photosynthesis')).toEqual([])
    await w.h.db.$client.execute({
      sql: "UPDATE saved_items SET title = 'Photosynthesis basics' WHERE id = ?",
      args: [id],
    })
    expect(await w.ids('photosynthesis')).toEqual([id])
    await w.h.db.$client.execute({
      sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 2, '<p></p>', 'chlorophyll absorbs light', '2026-01-01T00:00:00.000Z')",
      args: [id],
    })
    expect(await w.ids('chlorophyll')).toEqual([id])
    expect(await w.ids('photosynthesis chlorophyll')).toEqual([id])
    await w.h.db.$client.execute({
      sql: "UPDATE item_contents SET text = 'stomata open at dawn' WHERE item_id = ?",
      args: [id],
    })
    expect(await w.ids('chlorophyll')).toEqual([])
    expect(await w.ids('stomata')).toEqual([id])
    // A recapture that names a source adds it to the index.
    await w.h.call('POST', '/v1/captures', {
      token: w.key,
      body: { url: 'https://example.com/evolving', sourceName: 'Botany Digest' },
    })
    expect(await w.ids('botany digest')).toEqual([id])
    await w.h.db.$client.execute({ sql: 'DELETE FROM item_contents WHERE item_id = ?', args: [id] })
    expect(await w.ids('stomata')).toEqual([])
    expect(await w.ids('photosynthesis')).toEqual([id])
    await w.h.call('DELETE', `/v1/saved-items/${id}`, { token: w.key })
    expect(await w.ids('photosynthesis')).toEqual([])
    const rows = await w.h.db.$client.execute('SELECT count(*) AS n FROM search_index')
    expect(Number(rows.rows[0]!.n)).toBe(0)
  })
})
