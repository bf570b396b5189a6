// `npm run build:extension` (node scripts/build-extension.mjs [--out-dir DIR]): the browser extension,
// one source (extension/) for both browsers, as unpacked builds in DIR/chromium and DIR/firefox and a zip
// of each (DIR defaults to dist/extension). The manifest has one source, extension/manifest.json (the
// Chromium one); the Firefox differences are made here. docs/extension.md#build
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { zipSync } from 'fflate'

const root = fileURLToPath(new URL('..', import.meta.url))
const source = join(root, 'extension')

/** Firefox's id for the add-on: its storage, and identity.getRedirectURL()'s host, derive from it. */
export const GECKO_ID = 'readlater@readlater.extension'
/**
 * Firefox 140 (an ESR): the first to read `data_collection_permissions`; everything else used is older
 * (storage.session 115, action.openPopup 127, optional_host_permissions 128). On Android that key came in 142.
 */
export const FIREFOX_MIN_VERSION = '140.0'
export const FIREFOX_ANDROID_MIN_VERSION = '142.0'

/** The Firefox manifest from the Chromium one. */
export function firefoxManifest(chromium) {
  const { minimum_chrome_version: _, background, ...rest } = chromium
  return {
    ...rest,
    // Firefox runs MV3 background code as an event page (scripts), not a service worker.
    background: { scripts: [background.service_worker] },
    browser_specific_settings: {
      gecko: {
        id: GECKO_ID,
        strict_min_version: FIREFOX_MIN_VERSION,
        // Firefox asks an add-on to state what it transmits. This one sends the pages the person saves (their
        // address and content) and looks up the addresses it may see, to the person's own server only,
        // never to anyone else (docs/extension.md#privacy).
        data_collection_permissions: { required: ['browsingActivity', 'websiteContent'] },
      },
      gecko_android: { strict_min_version: FIREFOX_ANDROID_MIN_VERSION },
    },
  }
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

async function buildTarget(target, outDir, manifest) {
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  await build({
    entryPoints: {
      background: join(source, 'src/background.ts'),
      popup: join(source, 'src/popup.ts'),
      options: join(source, 'src/options.ts'),
    },
    outdir: outDir,
    bundle: true,
    format: 'iife',
    // Readable output (a store reviewer reads it); no source maps, no remote code.
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    target: target === 'firefox' ? ['firefox128'] : ['chrome127'],
    define: { __READLATER_TARGET__: JSON.stringify(target) },
    logLevel: 'warning',
  })
  cpSync(join(source, 'static'), outDir, { recursive: true })
  cpSync(join(source, 'icons'), join(outDir, 'icons'), { recursive: true })
  writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
}

/** A zip of a build, its entries sorted and dated alike, so the same source makes the same bytes. */
function zip(dir, file) {
  const entries = {}
  for (const path of filesUnder(dir).sort())
    entries[relative(dir, path).split('\\').join('/')] = [
      readFileSync(path),
      { mtime: new Date('2026-01-01T00:00:00Z') },
    ]
  writeFileSync(file, zipSync(entries, { level: 9 }))
}

/** Builds both browsers into outDir; returns the paths. */
export async function buildExtension(outDir = join(root, 'dist/extension')) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const { manifest_version, ...rest } = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'))
  const chromium = { manifest_version, name: rest.name, version, ...rest }
  const out = resolve(outDir)
  const paths = {
    chromium: join(out, 'chromium'),
    firefox: join(out, 'firefox'),
    chromiumZip: join(out, `readlater-chromium-${version}.zip`),
    firefoxZip: join(out, `readlater-firefox-${version}.zip`),
  }
  await buildTarget('chromium', paths.chromium, chromium)
  await buildTarget('firefox', paths.firefox, firefoxManifest(chromium))
  zip(paths.chromium, paths.chromiumZip)
  zip(paths.firefox, paths.firefoxZip)
  return paths
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out-dir')
  const paths = await buildExtension(at > 0 ? process.argv[at + 1] : undefined)
  for (const path of Object.values(paths)) console.log(relative(process.cwd(), path) || path)
}
