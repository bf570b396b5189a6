// The web app's service worker (docs/web.md#offline), bundled with Workbox by `npm run build:sw` into
// assets/sw.js, which the server serves at /sw.js after the app shell's list (`self.__READLATER_SHELL`).
// It keeps the app shell, the queue page as last seen and the reader views (with their same-origin images)
// of the person's newest unread items; offline it answers from them, and queues Mark read / Mark unread /
// Delete and reading progress to send in order, each with its own Idempotency-Key, when the network returns.
import { Queue } from 'workbox-background-sync'
import { clientsClaim } from 'workbox-core'
import { ExpirationPlugin } from 'workbox-expiration'
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching'
import { registerRoute, setCatchHandler } from 'workbox-routing'
import { CacheFirst, NetworkFirst } from 'workbox-strategies'

/** Queue pages as last seen, one per address (filters, sorts), the fewest kept. */
const PAGES = 'readlater-pages'
/** The kept reader views and their images, and the index of what is kept. */
const ARTICLES = 'readlater-articles'
/** The index's key in ARTICLES: no route of the app has this address. */
const INDEX = '/offline/kept-index'
/** Whose page a response is (an opaque key per person): pages of anyone else are never served. */
const USER_HEADER = 'x-readlater-user'
/** How long one change may wait for the network, in minutes (the server keeps Idempotency-Keys a day). */
const QUEUE_MINUTES = 24 * 60
/** A change the server failed on (5xx) is tried this many times, then dropped with a notice. */
const ATTEMPTS = 5

self.skipWaiting()
clientsClaim()
cleanupOutdatedCaches()
precacheAndRoute(self.__READLATER_SHELL || [])

// ── Whose pages ────────────────────────────────────────────────────────────────────────────────────

let lock = Promise.resolve()
/** Runs `work` alone: the index is read, changed and written by one task at a time. */
function alone(work) {
  const run = lock.then(work, work)
  lock = run.catch(() => {})
  return run
}

async function readIndex() {
  const cache = await caches.open(ARTICLES)
  const stored = await cache.match(INDEX)
  return stored ? stored.json() : { user: null, items: {} }
}

async function writeIndex(index) {
  const cache = await caches.open(ARTICLES)
  await cache.put(INDEX, new Response(JSON.stringify(index), { headers: { 'content-type': 'application/json' } }))
}

let knownUser
/** The person whose pages are kept, or null (none yet, or cleared). */
async function currentUser() {
  if (knownUser === undefined) knownUser = (await readIndex()).user
  return knownUser
}

/** Drops every kept page and image and, unless told, every change waiting to be sent. */
async function wipe(options) {
  await caches.delete(PAGES)
  await caches.delete(ARTICLES)
  knownUser = null
  if (!(options && options.keepQueue)) while (await queue.shiftRequest()) {}
}

/**
 * A page of `user` came from the network: another person's kept pages and waiting changes go at once, so
 * a person signing in on a browser that someone else left signed in never sees theirs (docs/security.md#offline-storage).
 */
function noteUser(user) {
  return alone(async () => {
    const before = await currentUser()
    if (before === user) return
    if (before !== null) await wipe()
    await writeIndex({ user, items: {} })
    knownUser = user
  })
}

/** Pages of the signed-in person only: a 200 that names them (never a redirect to sign-in, never another's). */
const ownPages = {
  async cacheWillUpdate({ response }) {
    if (!response || response.status !== 200 || response.type !== 'basic') return null
    const user = response.headers.get(USER_HEADER)
    if (!user) return null
    await noteUser(user)
    return response
  },
  async cachedResponseWillBeUsed({ cachedResponse }) {
    if (!cachedResponse) return null
    const user = await currentUser()
    return user !== null && cachedResponse.headers.get(USER_HEADER) === user ? cachedResponse : null
  },
}

// ── Routes ─────────────────────────────────────────────────────────────────────────────────────────

const READER = /^\/items\/([^/]+)$/
const IMAGE = /^\/items\/([^/]+)\/images\/[^/]+$/
const ACTION = /^\/(?:queue\/items\/([^/]+)\/(read-state|delete)|items\/([^/]+)\/(progress))$/
const ours = (url) => url.origin === self.location.origin

// The queue, network first: offline (or a failing server), the page as last seen.
registerRoute(
  ({ url, request }) => ours(url) && url.pathname === '/' && request.method === 'GET',
  new NetworkFirst({ cacheName: PAGES, plugins: [ownPages, new ExpirationPlugin({ maxEntries: 20 })] }),
)

/** A kept item's reader view only (the set the server lists: offline/manifest.json); the rest are not stored. */
const keptOnly = {
  async cacheWillUpdate({ request, response }) {
    const match = READER.exec(new URL(request.url).pathname) || IMAGE.exec(new URL(request.url).pathname)
    const index = await readIndex()
    return match && index.items[decodeURIComponent(match[1])] ? response : null
  },
}

/** A cached reader view opens where the person last read, changes not yet sent included. */
const pendingProgress = {
  async cachedResponseWillBeUsed({ request, cachedResponse }) {
    if (!cachedResponse) return null
    const id = decodeURIComponent(READER.exec(new URL(request.url).pathname)[1])
    const last = (await pending()).filter((action) => action.kind === 'progress' && action.id === id).pop()
    if (!last) return cachedResponse
    const text = (await cachedResponse.text()).replace(
      /(<article class="reader"[^>]*? data-progress=")[^"]*"/,
      `$1${String(last.progress)}"`,
    )
    return new Response(text, { status: cachedResponse.status, headers: cachedResponse.headers })
  },
}

registerRoute(
  ({ url, request }) => ours(url) && READER.test(url.pathname) && request.method === 'GET',
  new NetworkFirst({ cacheName: ARTICLES, plugins: [ownPages, keptOnly, pendingProgress] }),
)

/**
 * An archived image as its route serves it: never a sign-in page reached by following a redirect (a session
 * that ended answers an image address with a 303), which kept here would stand for the picture for good.
 */
const isImage = (response) =>
  Boolean(response) &&
  response.status === 200 &&
  response.type === 'basic' &&
  !response.redirected &&
  (response.headers.get('content-type') || '').indexOf('image/') === 0

// An article's archived images never change at an address (docs/web.md#offline): the kept copy first.
registerRoute(
  ({ url, request }) => ours(url) && IMAGE.test(url.pathname) && request.method === 'GET',
  new CacheFirst({
    cacheName: ARTICLES,
    plugins: [{ cacheWillUpdate: async ({ response }) => (isImage(response) ? response : null) }, keptOnly],
  }),
)

registerRoute(({ url }) => ours(url) && ACTION.test(url.pathname), act, 'POST')

// Offline, a page that is not kept: the queue as last seen for a queue address, else a short page saying so.
setCatchHandler(async ({ request, url }) => {
  if (
    request.method !== 'GET' ||
    (request.mode !== 'navigate' && request.destination !== 'document' && url.pathname !== '/')
  )
    return Response.error()
  if (url.pathname === '/') {
    const cached = await ownPages.cachedResponseWillBeUsed({
      cachedResponse: await (await caches.open(PAGES)).match('/'),
    })
    if (cached) return cached
  }
  return offlinePage()
})

function offlinePage() {
  const shell = self.__READLATER_SHELL || []
  const asset = (prefix) => (shell.find((entry) => entry.url.indexOf(prefix) === 0) || { url: '' }).url
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not kept offline · Readlater</title>
<link rel="stylesheet" href="${asset('/assets/app.css')}">
<script src="${asset('/assets/offline.js')}" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="/">Readlater</a></header>
<main>
<h1>Not kept offline</h1>
<p>This page is not kept for reading offline. Your queue and its newest unread articles are.</p>
<p><a href="/">Go to your queue</a></p>
</main>
</body>
</html>`
  return new Response(body, {
    status: 503,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    },
  })
}

// ── Changes made offline ───────────────────────────────────────────────────────────────────────────

const queue = new Queue('readlater-actions', {
  maxRetentionTime: QUEUE_MINUTES,
  // The browser's background sync, where it has it: sends what waits even with no page open.
  onSync: async () => {
    const outcome = await replay()
    if (outcome.waiting > 0) throw new Error('changes still waiting')
  },
})

/** What a queue or reader form does, read off its address and fields. */
function describe(url, body) {
  const match = ACTION.exec(url.pathname)
  const form = new URLSearchParams(new TextDecoder().decode(body))
  if (match[4] === 'progress')
    return { kind: 'progress', id: decodeURIComponent(match[3]), progress: Number(form.get('progress')) }
  const back = form.get('return')
  const id = decodeURIComponent(match[1])
  if (match[2] === 'delete') return { kind: 'delete', id, back }
  return { kind: 'read-state', id, isRead: form.get('isRead') === 'true', back }
}

/** Where a form's answer leads, as the server's redirect would: the reader view, or the queue it came from. */
function backOf(action) {
  if (action.back === 'reader') return `/items/${encodeURIComponent(action.id)}`
  const back = action.back || '/'
  return /^\/(?![/\\])/.test(back) && !/[\\\s]/.test(back) ? back : '/'
}

async function pending() {
  return (await queue.getAll()).map((entry) => entry.metadata.action)
}

async function tell(message) {
  for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage(message)
}

/**
 * A Mark read / Mark unread / Delete / progress post. Each gets an Idempotency-Key before its first try, so
 * if the answer is lost after the server acted, the replay with the same key is answered from the server's
 * record instead of acting twice. Changes already waiting go first (order is kept); offline, it waits too,
 * and the page is answered as if it had been sent: the form's redirect, or the progress route's 204.
 */
async function act({ request }) {
  const url = new URL(request.url)
  const body = await request.clone().arrayBuffer()
  const action = describe(url, body)
  const headers = new Headers(request.headers)
  headers.set('idempotency-key', self.crypto.randomUUID())
  const navigation = request.mode === 'navigate'
  if ((await queue.size()) > 0) await replay()
  if ((await queue.size()) === 0) {
    try {
      return await fetch(url.href, {
        method: 'POST',
        headers,
        body,
        credentials: 'same-origin',
        // A navigation gets the server's redirect to follow itself.
        redirect: navigation ? 'manual' : request.redirect,
        keepalive: request.keepalive,
      })
    } catch {
      // Offline, or the answer was lost: the same request, key included, waits for the network.
    }
  }
  await queue.pushRequest({
    request: new Request(url.href, { method: 'POST', headers, body, credentials: 'same-origin' }),
    metadata: { user: await currentUser(), action, attempts: 0 },
  })
  await tell({ type: 'queued', action })
  if (action.kind === 'progress') return new Response(null, { status: 204, headers: { 'x-readlater-queued': '1' } })
  return Response.redirect(new URL(backOf(action), self.location.origin).href, 303)
}

/** The form token of the session now (a new sign-in rotates it): queued forms are sent with it. */
function withCsrf(body, csrf) {
  const form = new URLSearchParams(new TextDecoder().decode(body))
  if (csrf) form.set('csrf', csrf)
  return form.toString()
}

let replaying = Promise.resolve()
/** Sends what waits, oldest first, one at a time; calls made meanwhile run after it. */
function replay() {
  const run = replaying.then(replayNow, replayNow)
  replaying = run.catch(() => {})
  return run
}

async function replayNow() {
  const outcome = { sent: 0, dropped: [], waiting: 0 }
  if ((await queue.size()) === 0) return outcome
  // Who is signed in now and their form token; offline, this fails and everything keeps waiting.
  let answer
  try {
    answer = await fetch('/offline/manifest.json', { credentials: 'same-origin', cache: 'no-store' })
  } catch {
    outcome.waiting = await queue.size()
    return outcome
  }
  if (answer.status === 401) {
    // Signed out: the changes wait for the same person to sign in again (another's sign-in drops them).
    outcome.waiting = await queue.size()
    await tell({ type: 'signed-out', waiting: outcome.waiting })
    return outcome
  }
  if (!answer.ok) {
    outcome.waiting = await queue.size()
    return outcome
  }
  const { user, csrf } = await answer.json()
  await noteUser(user)
  for (let entry = await queue.shiftRequest(); entry; entry = await queue.shiftRequest()) {
    const meta = entry.metadata
    if (meta.user !== user) continue
    const body = withCsrf(await entry.request.clone().arrayBuffer(), csrf)
    const again = (attempts) =>
      queue.unshiftRequest({
        request: new Request(entry.request.url, { method: 'POST', headers: entry.request.headers, body }),
        timestamp: entry.timestamp,
        metadata: { ...meta, attempts },
      })
    let response
    try {
      response = await fetch(entry.request.url, {
        method: 'POST',
        headers: entry.request.headers,
        body,
        credentials: 'same-origin',
        // The form's 303 is its success; nothing needs the page it leads to.
        redirect: 'manual',
      })
    } catch {
      await again(meta.attempts)
      break
    }
    if (response.type === 'opaqueredirect' || response.ok) {
      outcome.sent++
      continue
    }
    // The server failed, or the key's first request is still running: again later, a few times.
    if ((response.status >= 500 || response.status === 409) && meta.attempts + 1 < ATTEMPTS) {
      await again(meta.attempts + 1)
      break
    }
    // Refused for good: the item was deleted meanwhile (404), or the change is no longer valid. It is dropped,
    // with a notice, so one conflict never holds up the changes after it.
    outcome.dropped.push({ ...meta.action, status: response.status })
  }
  outcome.waiting = await queue.size()
  await tell({ type: 'replayed', sent: outcome.sent, dropped: outcome.dropped, waiting: outcome.waiting })
  return outcome
}

// ── The kept articles ──────────────────────────────────────────────────────────────────────────────

/** The article's images on this origin (its archived copies) that the page shows. */
function imagesOf(html, id) {
  const found = new Set()
  const prefix = `/items/${encodeURIComponent(id)}/images/`
  for (const match of html.matchAll(/<img\b[^>]*?\ssrc="([^"]+)"/g)) {
    let url
    try {
      url = new URL(match[1].replace(/&amp;/g, '&'), self.location.origin)
    } catch {
      continue
    }
    if (ours(url) && url.pathname.indexOf(prefix) === 0) found.add(url.href)
  }
  return [...found]
}

const sizeOf = async (response) => (await response.clone().arrayBuffer()).byteLength

let keeping = null
let keptAt = 0
let lastKept = null

/** Brings the kept set up to date, at most every 30 s unless forced; answers what is kept. */
function keep(force) {
  if (keeping) return keeping
  if (!force && lastKept && Date.now() - keptAt < 30_000) return Promise.resolve(lastKept)
  keeping = keepNow()
    .then((summary) => {
      lastKept = summary
      keptAt = Date.now()
      return summary
    })
    .finally(() => {
      keeping = null
    })
  return keeping
}

/**
 * The server lists the person's newest unread items that have an article with a version of each page
 * (offline/manifest.json); the worker fetches the pages that are new or changed and their images, newest
 * first while they fit in the byte budget, and drops the pages (and images) that fell out.
 */
async function keepNow() {
  const answer = await fetch('/offline/manifest.json', { credentials: 'same-origin', cache: 'no-store' })
  if (answer.status === 401) {
    await alone(() => wipe({ keepQueue: true }))
    return { kept: 0, bytes: 0, signedOut: true }
  }
  if (!answer.ok) throw new Error(`offline manifest: ${answer.status}`)
  const manifest = await answer.json()
  await noteUser(manifest.user)
  // The queue as the person would see it, if no page of it passed through here yet.
  const pages = await caches.open(PAGES)
  if (!(await pages.match('/'))) {
    const queuePage = await fetch('/', { credentials: 'same-origin', redirect: 'manual' })
    if ((await ownPages.cacheWillUpdate({ response: queuePage })) && (await currentUser()) === manifest.user)
      await pages.put('/', queuePage)
  }
  const cache = await caches.open(ARTICLES)
  const index = await readIndex()
  if (index.user !== manifest.user) return { kept: 0, bytes: 0 }
  const next = {}
  let used = 0
  for (const item of manifest.items) {
    const old = index.items[item.id]
    if (old && old.version === item.version) {
      if (used + old.bytes > manifest.maxBytes) break
      next[item.id] = old
      used += old.bytes
      continue
    }
    const page = await fetch(item.url, { credentials: 'same-origin', redirect: 'manual' })
    if (page.status !== 200 || page.headers.get(USER_HEADER) !== manifest.user) continue
    const html = await page.clone().text()
    const images = []
    let bytes = new TextEncoder().encode(html).byteLength
    const fetched = []
    for (const src of imagesOf(html, item.id)) {
      const kept = old && old.images.find((image) => image.url === src)
      if (kept && (await cache.match(src))) {
        images.push(kept)
        bytes += kept.bytes
        continue
      }
      const image = await fetch(src, { credentials: 'same-origin', redirect: 'manual' }).catch(() => null)
      if (!isImage(image)) continue
      const size = await sizeOf(image)
      images.push({ url: src, bytes: size })
      fetched.push([src, image])
      bytes += size
    }
    if (used + bytes > manifest.maxBytes) break
    await cache.put(item.url, page)
    for (const [src, image] of fetched) await cache.put(src, image)
    next[item.id] = { version: item.version, url: item.url, bytes, images }
    used += bytes
  }
  // What fell out (read, deleted, older than the newest 200, past the budget), and images no page uses now.
  const usedImages = new Set(Object.values(next).flatMap((entry) => entry.images.map((image) => image.url)))
  for (const [id, entry] of Object.entries(index.items)) {
    if (!next[id]) await cache.delete(entry.url)
    for (const image of entry.images) if (!usedImages.has(image.url)) await cache.delete(image.url)
  }
  await alone(async () => {
    if ((await currentUser()) === manifest.user) await writeIndex({ user: manifest.user, items: next })
  })
  return { kept: Object.keys(next).length, bytes: used }
}

// ── Pages talk to the worker ───────────────────────────────────────────────────────────────────────

self.addEventListener('message', (event) => {
  const data = event.data || {}
  const port = event.ports && event.ports[0]
  const reply = (value) => port && port.postMessage(value)
  let work = null
  // What waits to be sent, for the page to show it (optimistic).
  if (data.type === 'pending') work = pending().then((list) => reply({ pending: list }))
  // Online: send what waits, then bring the kept articles up to date.
  else if (data.type === 'sync')
    work = replay()
      .then((replayed) => keep(Boolean(data.force)).then((kept) => reply({ replayed, kept })))
      .catch((error) => reply({ error: String(error) }))
  // Drop everything kept and waiting (signing out also clears it all: Clear-Site-Data).
  else if (data.type === 'clear') work = alone(() => wipe()).then(() => reply({ cleared: true }))
  if (work) event.waitUntil(work)
})
