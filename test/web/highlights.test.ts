import { describe, expect, test } from 'bun:test'
import { articleText } from '../../core/reading/article-text.ts'
import { countRows, createHarness, type Harness } from '../helpers/harness.ts'
import { signedInWithKey } from './fixtures.ts'
import { textOf, WebClient, type Page } from './web-client.ts'

// Highlights in the web app over HTTP (docs/web.md#highlights, docs/highlights.md#web), on the three drivers
// (package.json's test:libsql and test:client run test/web): the reader view's marks and its list, the
// script's routes (create, colour and note, delete) and the plain delete form, /highlights and its paging,
// isolation between people, and hostile quotes and notes escaped everywhere.

const env = { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' }

const ARTICLE = `<h2>Memory &amp; safety</h2>
<p>Rust gives <em>memory safety</em> without a garbage collector. Go gives memory safety with one.</p>
<p>In C, memory safety is the programmer's problem: &lt;script&gt;alert(1)&lt;/script&gt; is just text here.</p>
<ul><li>First point</li><li>Second point</li></ul>`
const TEXT = articleText(ARTICLE)

interface Reader {
  h: Harness
  web: WebClient
  key: string
  itemId: string
}

/** A person signed in through the pages, with an item whose article is ARTICLE (as enrichment stores it). */
async function reader(email: string, harness?: Harness, html = ARTICLE): Promise<Reader> {
  const h = harness ?? (await createHarness({ env }))
  const { web, key } = await signedInWithKey(email, h)
  const capture = await h.call('POST', '/v1/captures', {
    token: key,
    body: { url: `https://example.com/${crypto.randomUUID()}` },
  })
  const itemId = capture.body.savedItem.id as string
  await h.db.$client.execute({
    sql: 'INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 30, ?, ?, ?)',
    args: [itemId, html, articleText(html), capture.body.savedItem.createdAt],
  })
  await web.get(`/items/${itemId}`)
  return { h, web, key, itemId }
}

/** A highlight through the API (REST), `exact` found at its `n`th occurrence. */
async function highlightOf(
  r: Reader,
  exact: string,
  options: { n?: number; color?: string; note?: string | null; itemId?: string } = {},
): Promise<any> {
  let start = -1
  for (let i = 0; i <= (options.n ?? 0); i++) start = TEXT.indexOf(exact, start + 1)
  expect(start).toBeGreaterThanOrEqual(0)
  const reply = await r.h.call('POST', `/v1/saved-items/${options.itemId ?? r.itemId}/highlights`, {
    token: r.key,
    body: {
      quote: { exact },
      position: { start, end: start + exact.length },
      ...(options.color ? { color: options.color } : {}),
      ...(options.note !== undefined ? { note: options.note } : {}),
    },
  })
  expect(reply.status).toBe(201)
  return reply.body.highlight
}

/** A post as the reader's script sends it: the form with the page's CSRF token, asking for JSON. */
async function scriptPost(
  r: Reader,
  path: string,
  fields: Record<string, string>,
  csrf: string | null = r.web.csrf,
): Promise<Page & { json: any }> {
  const body = new URLSearchParams(csrf === null ? {} : { csrf })
  for (const [name, value] of Object.entries(fields)) body.set(name, value)
  const page = await r.web.request('POST', path, body, { accept: 'application/json' })
  let json: unknown = null
  try {
    json = JSON.parse(page.text)
  } catch {}
  return { ...page, json }
}

const restHighlights = async (r: Reader, itemId = r.itemId): Promise<any[]> => {
  const reply = await r.h.call('GET', `/v1/saved-items/${itemId}/highlights`, { token: r.key })
  expect(reply.status).toBe(200)
  return reply.body.highlights
}

/** The article as the reader view embeds it. */
const articleOf = (page: string): string => /<div class="article"[^>]*>([\s\S]*?)<\/div>\n {2}<section/.exec(page)![1]!

describe('the reader view with highlights', () => {
  test('marks carry the id (first mark) and the colour; the article’s text is unchanged; the list has each quote, note and colour', async () => {
    const r = await reader('marks@example.com')
    const across = await highlightOf(r, 'collector. Go gives', { color: 'green', note: 'Compare' })
    const inner = await highlightOf(r, 'memory safety', { color: 'pink' })
    const paragraphs = await highlightOf(r, 'First point\n\nSecond', { color: 'purple' })
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(page.status).toBe(200)
    const article = articleOf(page.text)
    expect(articleText(article)).toBe(TEXT)
    expect(article).toContain(
      `<em><mark class="hl hl-pink" data-highlight="${inner.id}" id="highlight-${inner.id}">memory safety</mark></em>`,
    )
    expect(article).toContain(
      `<mark class="hl hl-green" data-highlight="${across.id}" id="highlight-${across.id}">collector. Go gives</mark>`,
    )
    // Across two list items: two marks, the id on the first only.
    expect(article).toContain(
      `<li><mark class="hl hl-purple" data-highlight="${paragraphs.id}" id="highlight-${paragraphs.id}">First point</mark></li><li><mark class="hl hl-purple" data-highlight="${paragraphs.id}">Second</mark> point</li>`,
    )
    expect(article.split(`id="highlight-${paragraphs.id}"`)).toHaveLength(2)
    // The list, in text order, each with its link and delete form.
    const list = page.text.slice(page.text.indexOf('<section class="highlights"'))
    expect(textOf(list)).toContain('Highlights 3 highlights All highlights')
    const order = [inner, across, paragraphs].map((h) => list.indexOf(`id="quote-${h.id}"`))
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(list).toContain(`<a href="#highlight-${across.id}">Show in article</a>`)
    expect(list).toContain('<p class="hl-note">Compare</p>')
    expect(list).toContain('<span class="hl-dot hl-green"></span>Green')
    // One form (one CSRF token) for the page; each button posts to its highlight's address.
    expect(list.match(/<form /g)).toHaveLength(1)
    expect(list).toContain(
      `<form id="hl-act" method="post" action="/items/${r.itemId}/highlights"><input type="hidden" name="csrf" value="${r.web.csrf}"></form>`,
    )
    expect(list).toContain(
      `<button form="hl-act" formaction="/items/${r.itemId}/highlights/${across.id}/delete" class="danger" aria-describedby="quote-${across.id}">Delete highlight</button>`,
    )
    expect(list.match(/>Delete highlight</g)).toHaveLength(3)
    expect(page.text).toContain('<a href="/highlights">Highlights</a>')
  })

  test('an orphan (position null) has no mark and says so in the list; an item without highlights says none', async () => {
    const r = await reader('orphan@example.com')
    const orphan = await highlightOf(r, 'First point')
    await r.h.db.$client.execute({
      sql: 'UPDATE highlights SET start = NULL, "end" = NULL WHERE id = ?',
      args: [orphan.id],
    })
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(page.text).not.toContain('<mark')
    expect(textOf(page.text)).toContain('First point Yellow Not found in the current article')
    expect(page.text).not.toContain(`href="#highlight-${orphan.id}"`)

    const empty = await reader('none@example.com', r.h)
    const none = await empty.web.get(`/items/${empty.itemId}`)
    expect(textOf(none.text)).toContain('Highlights No highlights yet. All highlights')
    expect(none.text).toContain(`<div class="article">${ARTICLE}</div>`)
  })

  test('a stored text that is not the article’s text: no marks (they would land elsewhere), the list stays', async () => {
    const r = await reader('mismatch@example.com')
    const highlight = await highlightOf(r, 'memory safety')
    await r.h.db.$client.execute({
      sql: "UPDATE item_contents SET html = '<p>Another memory safety text entirely.</p>' WHERE item_id = ?",
      args: [r.itemId],
    })
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(page.text).toContain('<div class="article"><p>Another memory safety text entirely.</p></div>')
    expect(page.text).toContain(`id="quote-${highlight.id}"`)
  })

  test('the page kept between views follows every change: colour, note, position, a new one, a delete, a new article', async () => {
    // The clock stands still here: each change below happens in the same millisecond as the one before.
    const r = await reader('kept@example.com')
    const first = await highlightOf(r, 'First point')
    const view = async () => (await r.web.get(`/items/${r.itemId}`)).text
    expect(await view()).toContain(`<mark class="hl hl-yellow" data-highlight="${first.id}"`)
    expect((await scriptPost(r, `/items/${r.itemId}/highlights/${first.id}`, { color: 'blue' })).status).toBe(200)
    expect(await view()).toContain(`<mark class="hl hl-blue" data-highlight="${first.id}"`)
    await scriptPost(r, `/items/${r.itemId}/highlights/${first.id}`, { note: 'A first note' })
    expect(await view()).toContain('<p class="hl-note">A first note</p>')
    await scriptPost(r, `/items/${r.itemId}/highlights/${first.id}`, { note: 'A longer second note' })
    expect(await view()).toContain('<p class="hl-note">A longer second note</p>')
    // A note of the same length, the same colour and position, in the same millisecond: only a version that
    // every change replaces (migration 0016) tells this page from the one kept.
    await scriptPost(r, `/items/${r.itemId}/highlights/${first.id}`, { note: 'A longer second NOTE' })
    expect(await view()).toContain('<p class="hl-note">A longer second NOTE</p>')
    const second = await highlightOf(r, 'Second point')
    expect(await view()).toContain(`id="highlight-${second.id}"`)
    // Moved by a new extraction (as re-anchoring writes it) and then the article itself replaced.
    const moved = `<p>New first paragraph.</p>${ARTICLE}`
    await r.h.db.$client.execute({
      sql: 'UPDATE highlights SET start = start + 22, "end" = "end" + 22 WHERE saved_item_id = ?',
      args: [r.itemId],
    })
    await r.h.db.$client.execute({
      sql: 'UPDATE item_contents SET html = ?, text = ? WHERE item_id = ?',
      args: [moved, articleText(moved), r.itemId],
    })
    const after = await view()
    expect(articleText(articleOf(after))).toBe(articleText(moved))
    expect(after).toContain(
      `<li><mark class="hl hl-blue" data-highlight="${first.id}" id="highlight-${first.id}">First point</mark></li>`,
    )
    await r.web.post(`/items/${r.itemId}/highlights/${second.id}/delete`)
    const last = await view()
    expect(last).not.toContain(second.id)
    expect(textOf(last)).toContain('1 highlight All highlights')
  })

  test('hostile quotes and notes are text everywhere: the marks, the list, /highlights', async () => {
    const hostile = `<p>Before "&gt;&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt; after.</p>`
    const r = await reader('hostile@example.com', undefined, hostile)
    const text = articleText(hostile)
    const exact = '"><img src=x onerror=alert(1)> and <script>alert(2)</script>'
    const start = text.indexOf(exact)
    const created = await scriptPost(r, `/items/${r.itemId}/highlights`, {
      exact,
      prefix: text.slice(0, start),
      suffix: text.slice(start + exact.length),
      start: String(start),
      end: String(start + exact.length),
      color: 'blue',
    })
    expect(created.status).toBe(201)
    const id = created.json.highlight.id
    const note = `</textarea><script>alert(3)</script>"><img src=x onerror=alert(4)>`
    expect((await scriptPost(r, `/items/${r.itemId}/highlights/${id}`, { note })).status).toBe(200)
    for (const path of [`/items/${r.itemId}`, '/highlights']) {
      const page = await r.web.get(path)
      expect(page.status).toBe(200)
      expect(page.text).not.toMatch(/<script>alert|<img src=x|<\/textarea>/)
      expect(page.text).toContain('&lt;script&gt;alert(3)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(4)&gt;')
      expect(page.text).toContain(
        '&quot;&gt;&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt;',
      )
      // The reader's own two files (its script, the offline one); /highlights has none.
      expect(page.text.match(/<script\b/g) ?? []).toHaveLength(path === '/highlights' ? 0 : 2)
    }
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(articleOf(page.text)).toBe(
      `<p>Before <mark class="hl hl-blue" data-highlight="${id}" id="highlight-${id}">"&gt;&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt;</mark> after.</p>`,
    )
  })
})

describe('the script’s routes', () => {
  test('create: 201 with the highlight as anchored, checked through the API; a plain form is redirected to its mark', async () => {
    const r = await reader('create@example.com')
    const exact = 'memory safety'
    const start = TEXT.indexOf(exact, TEXT.indexOf('Go gives'))
    const created = await scriptPost(r, `/items/${r.itemId}/highlights`, {
      exact,
      prefix: 'Go gives ',
      suffix: ' with one.',
      start: String(start),
      end: String(start + exact.length),
      color: 'green',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(created.headers.get('cache-control')).toBe('no-store')
    expect(created.json.highlight).toMatchObject({
      savedItemId: r.itemId,
      quote: { exact },
      position: { start, end: start + exact.length },
      color: 'green',
      note: null,
    })
    expect(await restHighlights(r)).toEqual([created.json.highlight])

    const plain = await r.web.post(`/items/${r.itemId}/highlights`, { exact: 'First point' })
    expect(plain.status).toBe(303)
    const second = (await restHighlights(r)).find((h) => h.quote.exact === 'First point')
    expect(plain.location).toBe(`/items/${r.itemId}#highlight-${second.id}`)
    expect(second.color).toBe('yellow')
  })

  test('refused: a quote not in the text (422), too long (400), bad offsets or colour (400): the message to show, nothing written', async () => {
    const r = await reader('refused@example.com')
    const cases: [Record<string, string>, number, string, RegExp][] = [
      [{ exact: 'not in this article' }, 422, 'HighlightAnchorError', /not in the saved text of the article/],
      [{ exact: 'x'.repeat(10_001) }, 400, 'ValidationError', /at most 10,000 characters: select a shorter passage/],
      [{ exact: '' }, 400, 'ValidationError', /at most 10,000 characters/],
      [{ exact: 'First point', start: '-1', end: '3' }, 400, 'ValidationError', /integers/],
      [{ exact: 'First point', start: '1e3', end: '3' }, 400, 'ValidationError', /integers/],
      [{ exact: 'First point', color: 'red' }, 400, 'ValidationError', /body\.color/],
      [{ exact: 'First point', note: 'n'.repeat(10_001) }, 400, 'ValidationError', /A note is at most 10,000/],
    ]
    const pending = (
      await r.h.call('POST', '/v1/captures', { token: r.key, body: { url: 'https://example.com/not-read-yet' } })
    ).body.savedItem.id
    const noArticle = await scriptPost(r, `/items/${pending}/highlights`, { exact: 'First point' })
    expect(noArticle.status).toBe(404)
    expect(noArticle.json).toEqual({ _tag: 'ContentNotFoundError', message: 'This item has no article to highlight.' })
    for (const [fields, status, tag, message] of cases) {
      const reply = await scriptPost(r, `/items/${r.itemId}/highlights`, fields)
      expect({ fields: Object.keys(fields), status: reply.status, tag: reply.json?._tag }).toEqual({
        fields: Object.keys(fields),
        status,
        tag,
      })
      expect(reply.json.message).toMatch(message)
    }
    expect(await countRows(r.h.db, 'highlights')).toBe(0)
  })

  test('the 1,000th highlight is the last an item may have', async () => {
    const r = await reader('limit@example.com')
    const first = await highlightOf(r, 'First point')
    // 999 more rows as the storage writes them: the limit is what is tested, not 1,000 requests.
    await r.h.db.$client.execute({
      sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
        INSERT INTO highlights (id, user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at)
        SELECT printf('%s-%04d', ?, i), user_id, saved_item_id, exact, prefix, suffix, start, "end", color, note, created_at, updated_at
        FROM highlights, n WHERE id = ?`,
      args: [first.id.slice(0, 30), first.id],
    })
    const reply = await scriptPost(r, `/items/${r.itemId}/highlights`, { exact: 'Second point' })
    expect(reply.status).toBe(400)
    expect(reply.json.message).toBe('This article already has 1,000 highlights, the most one item can have.')
  })

  test('colour and note: set, changed, cleared by a blank note; checked through the API', async () => {
    const r = await reader('update@example.com')
    const highlight = await highlightOf(r, 'First point')
    const path = `/items/${r.itemId}/highlights/${highlight.id}`
    const colour = await scriptPost(r, path, { color: 'purple' })
    expect(colour.status).toBe(200)
    expect(colour.json.highlight).toMatchObject({ color: 'purple', note: null })
    const noted = await scriptPost(r, path, { note: 'Line one\nline two' })
    expect(noted.json.highlight).toMatchObject({ color: 'purple', note: 'Line one\nline two' })
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(page.text).toContain('<p class="hl-note">Line one\nline two</p>')
    expect(page.text).toContain(`<mark class="hl hl-purple" data-highlight="${highlight.id}"`)
    const cleared = await scriptPost(r, path, { note: '   ' })
    expect(cleared.json.highlight.note).toBeNull()
    expect((await scriptPost(r, path, {})).status).toBe(400)
    expect((await scriptPost(r, path, { color: 'red' })).status).toBe(400)
    expect((await restHighlights(r))[0]).toMatchObject({ color: 'purple', note: null })
  })

  test('signed out: 401 for the script (no redirect to follow), the sign-in page for a plain form; nothing written', async () => {
    const r = await reader('away@example.com')
    const highlight = await highlightOf(r, 'First point')
    const stranger = new WebClient(r.h)
    await stranger.get('/sign-in')
    const body = new URLSearchParams({ csrf: stranger.csrf, exact: 'Second point' })
    const script = await stranger.request('POST', `/items/${r.itemId}/highlights`, body, { accept: 'application/json' })
    expect(script.status).toBe(401)
    expect(JSON.parse(script.text)._tag).toBe('UnauthorizedError')
    const plain = await stranger.post(`/items/${r.itemId}/highlights/${highlight.id}/delete`)
    expect(plain.status).toBe(303)
    expect(plain.location).toBe('/sign-in')
    expect(await restHighlights(r)).toHaveLength(1)
  })
})

describe('deleting with the plain form', () => {
  test('“Delete highlight” deletes it and comes back to the list; a second time is 404', async () => {
    const r = await reader('delete@example.com')
    const keep = await highlightOf(r, 'Second point')
    const gone = await highlightOf(r, 'First point', { note: 'bye' })
    const page = await r.web.get(`/items/${r.itemId}`)
    expect(page.text).toContain(`formaction="/items/${r.itemId}/highlights/${gone.id}/delete"`)
    const deleted = await r.web.post(`/items/${r.itemId}/highlights/${gone.id}/delete`)
    expect(deleted.status).toBe(303)
    expect(deleted.location).toBe(`/items/${r.itemId}#highlights`)
    expect((await restHighlights(r)).map((h) => h.id)).toEqual([keep.id])
    const after = await r.web.get(`/items/${r.itemId}`)
    expect(after.text).not.toContain(gone.id)
    const again = await r.web.post(`/items/${r.itemId}/highlights/${gone.id}/delete`)
    expect(again.status).toBe(404)
    expect(textOf(again.text)).toContain('Request refused')
  })

  test('without the right CSRF token: 403, nothing deleted', async () => {
    const r = await reader('csrf-delete@example.com')
    const highlight = await highlightOf(r, 'First point')
    for (const csrf of [null, '', 'A'.repeat(43)]) {
      const plain = await r.web.post(`/items/${r.itemId}/highlights/${highlight.id}/delete`, {}, { csrf })
      expect(plain.status).toBe(403)
      expect(plain.text).toContain('Form expired')
      const script = await scriptPost(r, `/items/${r.itemId}/highlights/${highlight.id}`, { color: 'blue' }, csrf)
      expect(script.status).toBe(403)
    }
    expect(await restHighlights(r)).toMatchObject([{ id: highlight.id, color: 'yellow' }])
  })

  test("another person's highlight and item: 404, like a missing one, and nothing changes", async () => {
    const h = await createHarness({ env })
    const owner = await reader('owner@example.com', h)
    const other = await reader('other@example.com', h)
    const highlight = await highlightOf(owner, 'First point')
    const paths = [
      `/items/${owner.itemId}/highlights/${highlight.id}/delete`,
      `/items/${other.itemId}/highlights/${highlight.id}/delete`,
    ]
    for (const path of paths) {
      expect((await other.web.post(path)).status).toBe(404)
      expect((await scriptPost(other, path, {})).json).toMatchObject({ _tag: 'HighlightNotFoundError' })
    }
    const patch = await scriptPost(other, `/items/${owner.itemId}/highlights/${highlight.id}`, { note: 'mine now' })
    expect(patch.status).toBe(404)
    const create = await scriptPost(other, `/items/${owner.itemId}/highlights`, { exact: 'First point' })
    expect(create.status).toBe(404)
    expect(create.json._tag).toBe('SavedItemNotFoundError')
    expect(await restHighlights(owner)).toMatchObject([{ id: highlight.id, note: null }])
    expect(await restHighlights(other)).toEqual([])
    const theirs = await other.web.get('/highlights')
    expect(theirs.text).not.toContain(highlight.id)
  })
})

describe('/highlights', () => {
  test('all of the person’s highlights, newest first, each linking to its mark; “Older” pages by 50', async () => {
    const h = await createHarness({ env })
    const r = await reader('all@example.com', h)
    const otherItem = (await h.call('POST', '/v1/captures', { token: r.key, body: { url: 'https://example.com/b' } }))
      .body.savedItem.id
    await h.db.$client.execute({
      sql: "INSERT INTO item_contents (item_id, word_count, html, text, extracted_at) VALUES (?, 30, ?, ?, '2026-11-22T10:00:00.000Z')",
      args: [otherItem, ARTICLE, TEXT],
    })
    await h.db.$client.execute({
      sql: "UPDATE saved_items SET title = 'The <b>second</b> item' WHERE id = ?",
      args: [otherItem],
    })
    const made: any[] = []
    for (let i = 0; i < 53; i++) {
      h.clock.advance(1000)
      made.push(
        await highlightOf(r, i % 2 ? 'First point' : 'Second point', {
          itemId: i % 3 ? r.itemId : otherItem,
          note: `note ${i}`,
        }),
      )
    }
    const first = await r.web.get('/highlights')
    expect(first.status).toBe(200)
    expect(first.text).toContain('<title>Highlights · Readlater</title>')
    const ids = (page: string) => [...page.matchAll(/<a href="\/items\/[^"#]+#highlight-([^"]+)">/g)].map((m) => m[1])
    const newest = [...made].reverse()
    expect(ids(first.text)).toEqual(newest.slice(0, 50).map((h) => h.id))
    const top = newest[0]
    expect(first.text).toContain(`<a href="/items/${top.savedItemId}#highlight-${top.id}">`)
    expect(first.text).toContain(`<p class="hl-note">note 52</p>`)
    expect(first.text).toContain('The &lt;b&gt;second&lt;/b&gt; item')
    const older = /<a class="button secondary" rel="next" href="([^"]+)">Older<\/a>/.exec(first.text)
    expect(older).not.toBeNull()
    const next = await r.web.get(older![1]!.replaceAll('&amp;', '&'))
    expect(ids(next.text)).toEqual(newest.slice(50).map((h) => h.id))
    expect(next.text).not.toContain('>Older<')
    // A cursor this page did not make is the first page.
    expect(ids((await r.web.get('/highlights?cursor=garbage')).text)).toEqual(ids(first.text))
  })

  test('nothing yet says how to start; signed out leads to sign-in and back', async () => {
    const r = await reader('empty@example.com')
    const page = await r.web.get('/highlights')
    expect(textOf(page.text)).toContain('No highlights yet.')
    const away = await new WebClient(r.h).get('/highlights')
    expect(away.status).toBe(303)
    expect(away.location).toBe('/sign-in?next=/highlights')
  })
})
