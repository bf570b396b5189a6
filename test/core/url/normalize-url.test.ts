import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_URL_LENGTH, normalizeUrl } from '../../../core/url/normalize-url.ts'

type Row = readonly [input: string, normalizedUrl: string, host: string]

function runRows(rows: readonly Row[]): void {
  for (const [input, normalizedUrl, host] of rows) {
    test(`normalizeUrl() maps ${JSON.stringify(input)} to ${normalizedUrl}`, () => {
      assert.deepEqual(normalizeUrl(input), { originalUrl: input.trim(), normalizedUrl, host })
    })
  }
}

describe('step 1: tabs and line breaks inside are removed from originalUrl too, as the WHATWG parser removes them', () => {
  const rows: [string, string, string][] = [
    ['https://example.com/a\r\nb', 'https://example.com/ab', 'https://example.com/ab'],
    ['https://exa\nmple.com/\tx', 'https://example.com/x', 'https://example.com/x'],
    ['\u0000 https://example.com/p?q=1\r\n\u001f', 'https://example.com/p?q=1', 'https://example.com/p?q=1'],
  ]
  for (const [input, originalUrl, normalizedUrl] of rows) {
    test(`normalizeUrl() keeps ${JSON.stringify(input)} as ${originalUrl}`, () => {
      const result = normalizeUrl(input)
      assert.equal(result.originalUrl, originalUrl)
      assert.equal(result.normalizedUrl, normalizedUrl)
      assert.doesNotMatch(result.originalUrl, /[\r\n\t]/)
    })
  }
})

describe('step 1: trim and WHATWG parse', () => {
  runRows([
    ['  https://example.com/a  ', 'https://example.com/a', 'example.com'],
    ['\thttp://example.com/\n', 'http://example.com/', 'example.com'],
    ['HTTPS://EXAMPLE.COM/Path', 'https://example.com/Path', 'example.com'],
    ['https://example.com', 'https://example.com/', 'example.com'],
    ['https://münchen.de/', 'https://xn--mnchen-3ya.de/', 'xn--mnchen-3ya.de'],
    ['https://例え.jp/', 'https://xn--r8jz45g.jp/', 'xn--r8jz45g.jp'],
    ['http://example.com:80/a', 'http://example.com/a', 'example.com'],
    ['https://example.com:443/a', 'https://example.com/a', 'example.com'],
    ['http://example.com:443/a', 'http://example.com:443/a', 'example.com'],
    ['https://example.com:8080/', 'https://example.com:8080/', 'example.com'],
    ['https://example.com/a/./b/../c', 'https://example.com/a/c', 'example.com'],
    ['http://[::1]:3000/x', 'http://[::1]:3000/x', '[::1]'],
    ['http://127.0.0.1/', 'http://127.0.0.1/', '127.0.0.1'],
  ])
})

describe('step 2: trailing dot and www.', () => {
  runRows([
    ['https://www.example.com/', 'https://example.com/', 'example.com'],
    ['https://example.com./a', 'https://example.com/a', 'example.com'],
    ['https://www.example.com./a', 'https://example.com/a', 'example.com'],
    ['https://WWW.Example.COM/', 'https://example.com/', 'example.com'],
    ['https://www.example.com:8443/', 'https://example.com:8443/', 'example.com'],
    ['https://www.com/', 'https://www.com/', 'www.com'],
    ['https://www2.example.com/', 'https://www2.example.com/', 'www2.example.com'],
    ['https://blog.www.example.com/', 'https://blog.www.example.com/', 'blog.www.example.com'],
  ])
})

describe('step 3: fragments', () => {
  runRows([
    ['https://example.com/a#section', 'https://example.com/a', 'example.com'],
    ['https://example.com/a#', 'https://example.com/a', 'example.com'],
    ['https://example.com/a?b=1#top', 'https://example.com/a?b=1', 'example.com'],
    ['https://example.com/#!/inbox', 'https://example.com/#!/inbox', 'example.com'],
    ['https://example.com/app#/settings/profile', 'https://example.com/app#/settings/profile', 'example.com'],
  ])
})

describe('step 4: tracking parameters', () => {
  runRows([
    ['https://example.com/a?utm_source=x&utm_medium=y&utm_campaign=z', 'https://example.com/a', 'example.com'],
    ['https://example.com/a?id=3&fbclid=abc', 'https://example.com/a?id=3', 'example.com'],
    ['https://example.com/?gclid=1&dclid=2&gbraid=3&wbraid=4&msclkid=5', 'https://example.com/', 'example.com'],
    [
      'https://example.com/?mc_cid=1&mc_eid=2&igshid=3&yclid=4&_hsenc=5&_hsmi=6&mkt_tok=7&ref_src=8&q=x',
      'https://example.com/?q=x',
      'example.com',
    ],
    ['https://example.com/?UTM_Source=x&p=1', 'https://example.com/?p=1', 'example.com'],
    ['https://example.com/?%75tm_source=x&p=1', 'https://example.com/?p=1', 'example.com'],
    ['https://example.com/?utmsource=x&ref=hn', 'https://example.com/?ref=hn&utmsource=x', 'example.com'],
  ])
})

describe('step 5: sorted query', () => {
  runRows([
    ['https://example.com/?b=2&a=1', 'https://example.com/?a=1&b=2', 'example.com'],
    ['https://example.com/?tag=z&a=1&tag=a', 'https://example.com/?a=1&tag=z&tag=a', 'example.com'],
    ['https://example.com/?b=%20&a=1', 'https://example.com/?a=1&b=%20', 'example.com'],
    ['https://example.com/?q=a+b&a', 'https://example.com/?a&q=a+b', 'example.com'],
    ['https://example.com/?q=hello world', 'https://example.com/?q=hello%20world', 'example.com'],
    ['https://example.com/?a=2&B=1', 'https://example.com/?B=1&a=2', 'example.com'],
    ['https://example.com/?a=2&%zz=1', 'https://example.com/?%zz=1&a=2', 'example.com'],
    ['https://example.com/?', 'https://example.com/', 'example.com'],
    ['https://example.com/a?&&', 'https://example.com/a', 'example.com'],
    ['https://example.com/?a=1&&b=2', 'https://example.com/?a=1&b=2', 'example.com'],
  ])
})

describe('step 6: trailing slash', () => {
  runRows([
    ['https://example.com/a/', 'https://example.com/a', 'example.com'],
    ['https://example.com/', 'https://example.com/', 'example.com'],
    ['https://example.com/a/b/?x=1', 'https://example.com/a/b?x=1', 'example.com'],
    ['https://example.com/a//', 'https://example.com/a/', 'example.com'],
    ['https://example.com/a/#!/x', 'https://example.com/a#!/x', 'example.com'],
  ])
})

describe('rejections', () => {
  const rejected: readonly [input: string, message: RegExp][] = [
    ['ftp://example.com/file', /^Cannot save URL: scheme "ftp:" is not http or https$/],
    ['javascript:alert(1)', /^Cannot save URL: scheme "javascript:" is not http or https$/],
    ['mailto:someone@example.com', /^Cannot save URL: scheme "mailto:" is not http or https$/],
    ['file:///etc/passwd', /^Cannot save URL: scheme "file:" is not http or https$/],
    ['/relative/path', /^Cannot save URL: "\/relative\/path" is not an absolute URL$/],
    ['example.com', /^Cannot save URL: "example.com" is not an absolute URL$/],
    ['', /^Cannot save URL: the URL is empty$/],
    ['   ', /^Cannot save URL: the URL is empty$/],
    ['https://user:pass@example.com/', /^Cannot save URL: it contains a user name or password$/],
    ['https://user@example.com/', /^Cannot save URL: it contains a user name or password$/],
    ['https://:secret@example.com/', /^Cannot save URL: it contains a user name or password$/],
    ['http://', /^Cannot save URL: "http:\/\/" is not an absolute URL$/],
    ['http://./', /^Cannot save URL: "http:\/\/.\/" has no host$/],
    [
      `https://example.com/${'a'.repeat(MAX_URL_LENGTH - 19)}`,
      /^Cannot save URL: it is 8193 characters long, the limit is 8192$/,
    ],
  ]
  for (const [input, message] of rejected) {
    test(`normalizeUrl() rejects ${JSON.stringify(input.slice(0, 40))}`, () => {
      assert.throws(
        () => normalizeUrl(input),
        (error: unknown) => {
          assert.ok(error instanceof Error)
          assert.equal((error as { _tag?: unknown })._tag, 'InvalidUrlError')
          assert.equal((error as { url?: unknown }).url, input)
          assert.match(error.message, message)
          return true
        },
      )
    })
  }

  test('normalizeUrl() accepts a URL of exactly MAX_URL_LENGTH characters', () => {
    const input = `https://example.com/${'a'.repeat(MAX_URL_LENGTH - 20)}`
    assert.equal(input.length, 8192)
    assert.equal(normalizeUrl(input).normalizedUrl, input)
  })
})
