import { beforeAll, describe, expect, test } from 'bun:test'
import { BASE, createHarness, type Harness, type Reply } from '../helpers/harness.ts'

// /docs: the API reference page. It must work offline: everything it loads comes from this service.

let h: Harness
let page: Reply

beforeAll(async () => {
  h = await createHarness()
  page = await h.call('GET', '/docs', { unchecked: true })
})

/** Every URL the page's markup refers to (src, href), resolved against the page. */
function referencedUrls(html: string): URL[] {
  return [...html.matchAll(/\s(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => new URL(m[1]!, `${BASE}/docs`))
}

describe('GET /docs', () => {
  test('answers an HTML page without any credential', () => {
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.text).toStartWith('<!doctype html>')
    expect(page.text).toContain('<title>Readlater API reference</title>')
    expect(page.text).toContain('data-spec-url="/openapi.json"')
  })

  test('refers to nothing outside the service: no CDN, no web fonts, no absolute URL', () => {
    expect(page.text).not.toMatch(/https?:\/\//i)
    expect(page.text).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}\//i) // protocol-relative URLs
    for (const host of ['cdn', 'unpkg', 'jsdelivr', 'fonts.googleapis', 'fonts.gstatic', 'scalar.com', 'swagger.io'])
      expect(page.text).not.toContain(host)
    const urls = referencedUrls(page.text)
    expect(urls.length).toBeGreaterThanOrEqual(4)
    for (const url of urls) expect(url.origin).toBe(BASE)
  })

  test('its CSP lets the page load scripts, styles, images and data only from the service', () => {
    const csp = page.headers.get('content-security-policy') ?? ''
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    )
    expect(directives['default-src']).toEqual(["'none'"])
    expect(directives['script-src']).toEqual(["'self'"])
    expect(directives['style-src']).toEqual(["'self'", "'unsafe-inline'"])
    expect(directives['connect-src']).toEqual(["'self'", BASE])
    expect(directives['frame-ancestors']).toEqual(["'none'"])
    expect(page.headers.get('cache-control')).toBe('no-cache')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('serves each script and stylesheet it references, without a credential', async () => {
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!)
    const styles = [...page.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!)
    expect(scripts.length).toBe(2)
    expect(styles.length).toBe(1)
    const sizes: Record<string, number> = {}
    for (const src of scripts) {
      const reply = await h.call('GET', src, { unchecked: true })
      expect({ src, status: reply.status, type: reply.headers.get('content-type') }).toEqual({
        src,
        status: 200,
        type: 'text/javascript; charset=utf-8',
      })
      sizes[src] = reply.text.length
    }
    const bundle = scripts.find((src) => src.endsWith('/swagger-ui-bundle.js'))!
    expect(sizes[bundle]).toBeGreaterThan(500_000)
    const css = await h.call('GET', styles[0]!, { unchecked: true })
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(css.text.length).toBeGreaterThan(50_000)
    expect(css.text).not.toMatch(/@import|url\(\s*["']?https?:/i)
  })

  test('the library files are versioned and cached for a year; the start script is revalidated', async () => {
    const bundle = [...page.text.matchAll(/<script src="([^"]+)"/g)]
      .map((m) => m[1]!)
      .find((src) => src.endsWith('/swagger-ui-bundle.js'))!
    expect(bundle).toMatch(/^\/docs\/assets\/\d+\.\d+\.\d+\/swagger-ui-bundle\.js$/)
    const reply = await h.call('GET', bundle, { unchecked: true })
    expect(reply.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    // The source map is not served, so the bundle must not point to it.
    expect(reply.text.slice(-300)).not.toContain('sourceMappingURL')
    const init = await h.call('GET', '/docs/assets/init.js', { unchecked: true })
    expect(init.headers.get('cache-control')).toBe('no-cache')
  })

  test('the start script loads the spec from the page and turns off the remote validator badge', async () => {
    const init = await h.call('GET', '/docs/assets/init.js', { unchecked: true })
    expect(init.status).toBe(200)
    expect(init.text).toContain("getAttribute('data-spec-url')")
    expect(init.text).toContain('validatorUrl: null')
    expect(init.text).not.toMatch(/https?:\/\//)
  })

  test('an unknown asset or another library version is a 404 RouteNotFoundError', async () => {
    const bundle = [...page.text.matchAll(/<script src="([^"]+)"/g)]
      .map((m) => m[1]!)
      .find((src) => src.endsWith('/swagger-ui-bundle.js'))!
    for (const path of [
      bundle.replace(/\/\d+\.\d+\.\d+\//, '/0.0.1/'),
      bundle.replace('swagger-ui-bundle.js', 'package.json'),
      bundle.replace('swagger-ui-bundle.js', '..%2F..%2Fpackage.json'),
    ]) {
      const reply = await h.call('GET', path, { unchecked: true })
      expect({ path, status: reply.status, tag: reply.body?._tag }).toEqual({
        path,
        status: 404,
        tag: 'RouteNotFoundError',
      })
    }
  })

  test('is public: a request with a bogus credential still gets the page and uses up no rate limit', async () => {
    const reply = await h.call('GET', '/docs', { token: 'rlk_not-a-real-key', unchecked: true })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('ratelimit-limit')).toBeNull()
    expect(reply.text).toBe(page.text)
  })
})
