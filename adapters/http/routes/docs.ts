import { Elysia } from 'elysia'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { RouteNotFoundError } from '../../../core/errors.ts'

// The API reference at /docs: Swagger UI from the swagger-ui-dist package, served by this service,
// so the page works offline and loads nothing from another origin. /openapi.json is the document.

const ASSET_FILES = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const
type AssetName = keyof typeof ASSET_FILES

/** Starts Swagger UI on the page; a file of its own so the page's CSP can forbid inline scripts. */
const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    displayRequestDuration: true,
    showExtensions: true,
    showCommonExtensions: true,
    defaultModelsExpandDepth: 1,
    docExpansion: 'list',
    persistAuthorization: false
  });
})();
`

const IMMUTABLE = 'public, max-age=31536000, immutable'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

interface SwaggerDist {
  dir: string
  version: string
}

let dist: SwaggerDist | undefined
function swaggerDist(): SwaggerDist {
  if (!dist) {
    const require = createRequire(import.meta.url)
    const packageJson = require.resolve('swagger-ui-dist/package.json')
    dist = { dir: dirname(packageJson), version: (require(packageJson) as { version: string }).version }
  }
  return dist
}

const assets = new Map<AssetName, Promise<string>>()
/** The file's text, read once; the source map comment is dropped since the maps are not served. */
function asset(name: AssetName): Promise<string> {
  let text = assets.get(name)
  if (!text) {
    text = readFile(join(swaggerDist().dir, name), 'utf8').then((source) =>
      source.replace(/\n?(\/\/# sourceMappingURL=\S+|\/\*# sourceMappingURL=\S+ ?\*\/)\s*$/, '\n'),
    )
    text.catch(() => assets.delete(name))
    assets.set(name, text)
  }
  return text
}

function page(title: string, version: string): string {
  const base = `/docs/assets/${encodeURIComponent(version)}`
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} reference</title>
  <link rel="stylesheet" href="${base}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui" data-spec-url="/openapi.json"></div>
  <noscript>This page needs JavaScript. The API description itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <script src="${base}/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`
}

export interface DocsOptions {
  /** The finished OpenAPI document, built on first use. */
  document(): unknown
  title: string
  /** Where "Try it out" sends requests (the document's server), allowed by the page's CSP. */
  baseUrl: string
}

export const docsRoutes = ({ document, title, baseUrl }: DocsOptions) => {
  const hidden = { detail: { hide: true } }
  let html: string | undefined
  let json: string | undefined
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${new URL(baseUrl).origin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')

  return new Elysia()
    .get(
      '/openapi.json',
      () =>
        new Response((json ??= JSON.stringify(document())), {
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-cache',
            'access-control-allow-origin': '*',
          },
        }),
      hidden,
    )
    .get(
      '/docs',
      () =>
        new Response((html ??= page(title, swaggerDist().version)), {
          headers: {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-cache',
            'content-security-policy': csp,
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
          },
        }),
      hidden,
    )
    .get(
      '/docs/assets/init.js',
      () =>
        new Response(INIT_SCRIPT, {
          headers: {
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'no-cache',
            'x-content-type-options': 'nosniff',
          },
        }),
      hidden,
    )
    .get(
      '/docs/assets/:version/:file',
      async ({ params, path }) => {
        const name = params.file as AssetName
        if (params.version !== swaggerDist().version || !Object.hasOwn(ASSET_FILES, name))
          throw new RouteNotFoundError(`No route for ${path}`)
        return new Response(await asset(name), {
          headers: {
            'content-type': ASSET_FILES[name],
            'cache-control': IMMUTABLE,
            'x-content-type-options': 'nosniff',
          },
        })
      },
      hidden,
    )
}
