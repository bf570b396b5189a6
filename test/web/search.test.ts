import { afterEach, describe, expect, test } from 'bun:test'
import { cleanUp } from '../enrichment/enrichment-helpers.ts'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { userIdOf } from './fixtures.ts'
import { apiKeyFor, articlePage, captureItem, enrich } from './reader-fixtures.ts'
import { textOf, WebClient } from './web-client.ts'

// The queue page's search over HTTP (docs/web.md#search): the box, the results with their marked
// snippets, paging, refused queries, and that a person only ever sees their own items.

afterEach(cleanUp)

const env = { IP_RATE_LIMIT_MAX: '100000', RATE_LIMIT_MAX: '100000' }

interface Person {
  h: Harness
  web: WebClient
  key: string
}

async function person(email: string, harness?: Harness): Promise<Person> {
  const h = harness ?? (await createHarness({ env }))
  const web = new WebClient(h)
  await web.signUp(email)
  await web.get('/')
  return { h, web, key: await apiKeyFor(h, await userIdOf(h, email)) }
}

/** Saves a URL through the API and gives it a title; the search index follows the row by trigger. */
async function saved(p: Person, url: string, title: string): Promise<string> {
  const id = await captureItem(p.h, p.key, url)
  await p.h.db.$client.execute({ sql: 'UPDATE saved_items SET title = ? WHERE id = ?', args: [title, id] })
  return id
}

const search = (who: Person | WebClient, q: string, cursor?: string) =>
  (who instanceof WebClient ? who : who.web).get(
    `/?q=${encodeURIComponent(q)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  )

/** The result rows of a page, one string each. */
const rowsOf = (markup: string): string[] => markup.match(/<li class="(?:read|unread)">[\s\S]*?<\/li>/g) ?? []

/** The "More results" link's address, as a browser would follow it (attribute entities decoded). */
const moreOf = (markup: string): string | null => {
  const match = /<a class="button secondary" href="([^"]+)" rel="next">More results<\/a>/.exec(markup)
  return match ? match[1]!.replaceAll('&amp;', '&') : null
}

describe('the search box', () => {
  test('the queue has a GET search form; a blank query is the queue itself', async () => {
    const p = await person('box@example.com')
    await saved(p, 'https://example.com/a', 'Something saved')
    const queue = await p.web.get('/')
    expect(queue.text).toContain('<form role="search" method="get" action="/" class="search">')
    expect(queue.text).toMatch(/<input type="search" name="q" aria-label="Search" [^>]*value="">/)
    expect(queue.text).toContain('<button type="submit" class="secondary">Search</button>')
    // The rest of the queue is still there.
    expect(queue.text).toContain('action="/queue/capture"')
    expect(queue.text).toContain('<nav aria-label="Folders" class="folders">')
    const blank = await search(p, '   ')
    expect(blank.status).toBe(200)
    expect(blank.text).toContain('<nav aria-label="Folders" class="folders">')
    expect(blank.text).not.toContain('Clear search')
    expect(textOf(blank.text)).toContain('Something saved')
  })
})

describe('results', () => {
  test('matching items with their host, the snippet marked, the query kept in the box', async () => {
    const p = await person('results@example.com')
    await saved(p, 'https://blog.example.org/rust', 'Rust memory safety without a garbage collector')
    await saved(p, 'https://garden.example.net/', 'Gardening notes for spring')
    const page = await search(p, 'rust "memory safety"')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.text).toContain('<title>Search · Readlater</title>')
    expect(page.text).toContain('value="rust &quot;memory safety&quot;"')
    expect(page.text).toContain('<h2 id="results-heading">Results for “rust &quot;memory safety&quot;”</h2>')
    const rows = rowsOf(page.text)
    expect(rows).toHaveLength(1)
    const [row] = rows
    // No article: the title goes to the original, in a new tab.
    expect(row).toContain(
      '<a class="title" href="https://blog.example.org/rust" target="_blank" rel="noopener noreferrer">Rust memory safety without a garbage collector</a>',
    )
    expect(row).toContain('blog.example.org · Unread')
    expect(row).toContain(
      '<p class="snippet"><mark>Rust</mark> <mark>memory safety</mark> without a garbage collector</p>',
    )
    expect(page.text).not.toContain('Gardening')
    expect(page.text).toContain('<a href="/" class="clear-search">Clear search</a>')
    expect(page.text).not.toContain('More results')
    // The results replace the list and its folder filter; capturing still works from here.
    expect(page.text).not.toContain('folder-filter')
    expect(page.text).toContain('action="/queue/capture"')
    const captured = await p.web.post('/queue/capture', { url: 'https://example.com/from-search' })
    expect(captured.status).toBe(303)
    expect(captured.location).toBe('/?done=saved')
  })

  test('titles, snippets and the query are escaped; only the search’s own marks become <mark>', async () => {
    const p = await person('escape@example.com')
    await saved(p, 'https://example.com/x', '<script>alert("pwned")</script> «Quoted» Rust & Co')
    const page = await search(p, 'rust')
    expect(page.status).toBe(200)
    const [row] = rowsOf(page.text)
    expect(row).toContain(
      '<p class="snippet">&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; «Quoted» <mark>Rust</mark> &amp; Co</p>',
    )
    expect(row).toContain('>&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; «Quoted» Rust &amp; Co</a>')
    // Our own files only: the queue's script and the offline one (docs/web.md#offline).
    expect(page.text).not.toMatch(/<script(?! src="\/assets\/(?:queue|offline)\.js\?v=\w+" defer><\/script>)/)

    // A word in « » of the title's own that the query asks for is marked inside them.
    const quoted = await search(p, 'quoted')
    expect(rowsOf(quoted.text)[0]).toContain('«<mark>Quoted</mark>» Rust &amp; Co</p>')

    // What is typed comes back as text, in the box and in the heading.
    const hostile = await search(p, '"><script>alert(1)</script> rust')
    expect(hostile.status).toBe(200)
    expect(hostile.text).not.toContain('<script>alert(1)')
    expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; rust"')
    expect(hostile.text).toContain('Results for “&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; rust”')
  })

  test('an item with an article links its title to the reader view and its host to the original', async () => {
    const p = await person('reader@example.com')
    const page = articlePage({ title: 'On reading slowly', site: 'Field Notes', author: 'Ada', paragraphs: 6 })
    const id = await captureItem(p.h, p.key, 'https://notes.example.com/posts/reading', page)
    await enrich(p.h, p.key, [id])
    const found = await search(p, 'slowly')
    const [row] = rowsOf(found.text)
    expect(row).toContain(`<a class="title" href="/items/${id}">On reading slowly</a>`)
    expect(row).toContain(
      'Field Notes · <a class="original" href="https://notes.example.com/posts/reading" target="_blank" rel="noopener noreferrer">notes.example.com</a>',
    )
    expect(row).toContain('<mark>slowly</mark>')
    // A word only in the article's text is found too, and its snippet comes from there.
    const deep = await search(p, 'seventy')
    expect(rowsOf(deep.text)[0]).toContain('<mark>seventy</mark> characters')
  })

  test('20 a page, a "More results" link while more follow, and every item once', async () => {
    const p = await person('paging@example.com')
    const ids = new Set<string>()
    for (let i = 0; i < 23; i++) ids.add(await saved(p, `https://example.com/page/${i}`, `Paging sample ${i}`))
    const first = await search(p, 'paging')
    expect(rowsOf(first.text)).toHaveLength(20)
    const more = moreOf(first.text)
    expect(more).toStartWith('/?q=paging&cursor=')
    const second = await p.web.get(more!)
    expect(second.status).toBe(200)
    expect(rowsOf(second.text)).toHaveLength(3)
    expect(moreOf(second.text)).toBeNull()
    expect(second.text).toContain('value="paging"')
    const seen = [
      ...first.text.matchAll(/href="https:\/\/example\.com\/page\/(\d+)"/g),
      ...second.text.matchAll(/href="https:\/\/example\.com\/page\/(\d+)"/g),
    ]
    expect(new Set(seen.map((m) => m[1])).size).toBe(23)
  })

  test('no match says so', async () => {
    const p = await person('none@example.com')
    await saved(p, 'https://example.com/a', 'Something else entirely')
    const page = await search(p, 'zebra')
    expect(page.status).toBe(200)
    expect(rowsOf(page.text)).toHaveLength(0)
    expect(textOf(page.text)).toContain('No saved items match.')
    expect(page.text).toContain('Clear search')
  })
})

describe('refused queries', () => {
  test('400 with the reason beside the box (the API’s message), the query kept, never a 500', async () => {
    const p = await person('refused@example.com')
    await saved(p, 'https://example.com/a', 'Rust notes')
    const cases: [string, string][] = [
      ['-gc', 'q: needs a word to find, not only words to leave out'],
      ['type:podcast', ''],
      ['folder:Nowhere rust', 'q: folder:"Nowhere" names no folder'],
      ['!!! ???', 'q: has no word to search for'],
      ['x'.repeat(1001), 'q: at most 1000 characters'],
    ]
    for (const [q, expected] of cases) {
      const page = await search(p, q)
      const api = await p.h.call('GET', `/v1/search?q=${encodeURIComponent(q)}`, { token: p.key })
      expect(api.status).toBe(400)
      const message = api.body.message as string
      if (expected) expect(message).toBe(expected)
      expect(page.status).toBe(400)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const escaped = message.replaceAll('"', '&quot;')
      expect(page.text).toContain(`<p class="error" role="alert" id="search-error">${escaped}</p>`)
      expect(page.text).toContain('aria-invalid="true" aria-describedby="search-error"')
      expect(page.text).toContain(`value="${q.replaceAll('"', '&quot;')}"`)
      expect(page.text).toContain('Clear search')
      expect(rowsOf(page.text)).toHaveLength(0)
    }
  })

  test('a cursor sent with another query, or not a cursor, is a 400 too', async () => {
    const p = await person('cursor@example.com')
    for (let i = 0; i < 21; i++) await saved(p, `https://example.com/c/${i}`, `Cursor sample ${i}`)
    const cursor = new URL(moreOf((await search(p, 'cursor')).text)!, 'http://x').searchParams.get('cursor')!
    const other = await search(p, 'sample', cursor)
    expect(other.status).toBe(400)
    expect(other.text).toContain('role="alert" id="search-error">cursor: made for another query; send the same q</p>')
    const junk = await search(p, 'cursor', 'not-a-cursor')
    expect(junk.status).toBe(400)
    expect(junk.text).toContain('role="alert" id="search-error">cursor: not a cursor this API issued</p>')
  })
})

describe('who sees what', () => {
  test('another person’s items never appear, though they share the words', async () => {
    const h = await createHarness({ env })
    const alice = await person('alice@example.com', h)
    const bob = await person('bob@example.com', h)
    await saved(alice, 'https://alice.example.com/', 'Shared words in Alice private title')
    await saved(bob, 'https://bob.example.com/', 'Shared words in Bob title')
    const bobs = await search(bob, 'shared words')
    expect(rowsOf(bobs.text)).toHaveLength(1)
    expect(bobs.text).toContain('Bob title')
    expect(bobs.text).not.toContain('Alice')
    expect(bobs.text).not.toContain('alice.example.com')
    const theirs = await search(bob, 'alice')
    expect(textOf(theirs.text)).toContain('No saved items match.')
    const alices = await search(alice, 'shared')
    expect(rowsOf(alices.text)).toHaveLength(1)
    expect(alices.text).not.toContain('Bob')
  })

  test('signed out: sent to sign in, and brought back to the search', async () => {
    const p = await person('away@example.com')
    await saved(p, 'https://example.com/a', 'Rust notes after signing in')
    const stranger = new WebClient(p.h)
    const page = await search(stranger, 'rust notes')
    expect(page.status).toBe(303)
    expect(page.location).toBe('/sign-in?next=' + encodeURIComponent('/?q=rust%20notes').replace(/%2F/g, '/'))
    const signedIn = await stranger.signIn('away@example.com', 'correct horse battery', '/?q=rust%20notes')
    expect(signedIn.location).toBe('/?q=rust%20notes')
    const back = await stranger.get(signedIn.location!)
    expect(back.text).toContain('<mark>Rust</mark> <mark>notes</mark> after signing in')
  })
})
