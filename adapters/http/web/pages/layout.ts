import { html, raw, type SafeHtml } from './html.ts'
import { APP_STYLESHEET } from './styles.ts'
import { OFFLINE_SCRIPT_ASSET } from './offline-asset.ts'

export interface PageOptions {
  title: string
  body: SafeHtml
  /** The signed-in person's email, shown in the header with a sign-out form. */
  signedInAs?: string | null
  csrfToken?: string
  /** Hide the "Create account" link when SIGNUP=closed. */
  signupOpen?: boolean
  /** More of our own constant CSS, for one kind of page (the reader view). */
  styles?: string
  /** A script of our own, by same-origin path, loaded with `defer`: pages never carry inline script. */
  script?: string
  /** A class for `<main>`, for pages that lay themselves out (the reader view sets its own measure). */
  mainClass?: string
  /** Reload the page after this many seconds (an import's progress page follows its job without script). */
  refreshSeconds?: number
  /**
   * A page kept for reading offline (the queue, the reader view): it also loads the offline script, which
   * registers the service worker and shows the "Offline" banner (docs/web.md#offline).
   */
  offline?: boolean
}

/**
 * The frame of every page: our one stylesheet (a file kept for good once fetched: a page carries none of its
 * CSS), responsive, not frameable (headers).
 */
export function layout(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Readlater</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="manifest" href="/manifest.webmanifest">
<meta name="theme-color" content="#c2410c">
${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${String(options.refreshSeconds)}">` : null}
<link rel="stylesheet" href="${APP_STYLESHEET.src}">
${options.styles ? html`<style>${raw(options.styles)}</style>` : null}
${options.offline ? html`<script src="${OFFLINE_SCRIPT_ASSET.src}" defer></script>` : null}
${options.script ? html`<script src="${options.script}" defer></script>` : null}
</head>
<body>
<header class="top">
  <a class="brand" href="/">Readlater</a>
  ${
    options.signedInAs
      ? html`<nav><a href="/">Queue</a> <a href="/highlights">Highlights</a> <a href="/settings">Settings</a>
      <form method="post" action="/sign-out" class="inline"><input type="hidden" name="csrf" value="${options.csrfToken ?? ''}"><button type="submit" class="link">Sign out</button></form></nav>`
      : html`<nav><a href="/sign-in">Sign in</a>${options.signupOpen === false ? '' : html` <a href="/sign-up">Create account</a>`}</nav>`
  }
</header>
<main${options.mainClass ? html` class="${options.mainClass}"` : null}>
${options.body}
</main>
</body>
</html>`.value
}

/**
 * The pages' Content-Security-Policy: our own scripts (files, never inline), inline styles, images from us or
 * any https: origin (favicons; an http: one is not shown), no framing, and forms
 * that post only to this origin (`formTargets` adds where a form's answer may redirect to: Chromium applies
 * `form-action` to the redirect that follows a POST, so the consent page names the client's redirect URI).
 * @see docs/security.md#response-headers
 */
export function pageCsp(formTargets: readonly string[] = []): string {
  return `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; manifest-src 'self'; form-action ${["'self'", ...formTargets].join(' ')}; frame-ancestors 'none'; base-uri 'none'`
}

/**
 * The CSP source that matches a redirect URI, for {@link pageCsp}'s `formTargets`: its origin (http, https),
 * or its scheme (`com.example.app:`, `raycast:`).
 */
export function cspSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri)
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol
}

/**
 * The reader view's policy: our own script only (no inline script at all, so an article's markup cannot run
 * even if it got past the sanitizer), article images from our own origin (the archived copies,
 * docs/reading.md#archived-images), any https: origin (an image not archived) or `data:`, and no frames,
 * plugins, fonts, stylesheets or base URL from anywhere. @see docs/web.md#reader-view
 */
export const READER_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' https: data:; manifest-src 'self'; style-src 'self' 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

/** Security headers for every HTML page: no framing (consent must not be clickjacked), no inline script. */
export const HTML_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': pageCsp(),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
}
