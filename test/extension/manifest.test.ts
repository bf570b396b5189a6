import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { ROOT } from '../e2e/processes.ts'
import { buildExtension, type ExtensionBuild } from './build.ts'

// docs/extension.md#permissions: the manifests the build makes from extension/manifest.json, for Chromium and
// for Firefox, ask for exactly these permissions and nothing that reaches every site up front.

let build: ExtensionBuild
let chromium: Record<string, any>
let firefox: Record<string, any>
const PERMISSIONS = ['activeTab', 'scripting', 'storage', 'contextMenus', 'identity', 'alarms']

beforeAll(async () => {
  build = await buildExtension()
  chromium = JSON.parse(readFileSync(join(build.chromium, 'manifest.json'), 'utf8'))
  firefox = JSON.parse(readFileSync(join(build.firefox, 'manifest.json'), 'utf8'))
}, 60_000)
afterAll(() => build?.remove())

describe('both manifests', () => {
  for (const name of ['chromium', 'firefox'] as const) {
    test(`${name}: MV3, exactly the six permissions, host access only optional, no remote code`, () => {
      const manifest = name === 'chromium' ? chromium : firefox
      expect(manifest.manifest_version).toBe(3)
      expect(manifest.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
      expect([...manifest.permissions].sort()).toEqual([...PERMISSIONS].sort())
      expect(manifest.permissions).toHaveLength(6)
      expect(manifest.optional_host_permissions).toEqual(['http://*/*', 'https://*/*'])
      expect(manifest.host_permissions).toBeUndefined()
      expect(manifest.content_scripts).toBeUndefined()
      expect(manifest.content_security_policy).toBeUndefined()
      expect(manifest.externally_connectable).toBeUndefined()
      expect(manifest.web_accessible_resources).toBeUndefined()
      expect(JSON.stringify(manifest)).not.toContain('<all_urls>')
      expect(manifest.permissions).not.toContain('tabs')
      // No default_popup: the button saves (action.onClicked), then the popup shows the result.
      expect(manifest.action.default_popup).toBeUndefined()
      expect(manifest.commands._execute_action.suggested_key.default).toBe('Alt+Shift+S')
      expect(manifest.options_ui.page).toBe('options.html')
    })

    test(`${name}: every file the manifest names is in the build, icons are PNGs`, () => {
      const manifest = name === 'chromium' ? chromium : firefox
      const dir = name === 'chromium' ? build.chromium : build.firefox
      const named = [
        ...Object.values(manifest.icons as Record<string, string>),
        ...Object.values(manifest.action.default_icon as Record<string, string>),
        manifest.options_ui.page,
        ...(manifest.background.scripts ?? [manifest.background.service_worker]),
      ]
      for (const file of named) expect(readFileSync(join(dir, file)).byteLength).toBeGreaterThan(0)
      for (const icon of Object.values(manifest.icons as Record<string, string>)) {
        expect(icon).toEndWith('.png')
        expect([...readFileSync(join(dir, icon)).subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10])
      }
      expect(readdirSync(dir).sort()).toEqual([
        'background.js',
        'extension.css',
        'icons',
        'manifest.json',
        'options.html',
        'options.js',
        'popup.html',
        'popup.js',
      ])
    })
  }

  test('the code loads nothing from elsewhere: no remote script, eval or Function', () => {
    for (const dir of [build.chromium, build.firefox]) {
      for (const file of ['background.js', 'popup.js', 'options.js']) {
        const code = readFileSync(join(dir, file), 'utf8')
        expect(code).not.toMatch(/\beval\(|new Function\(|importScripts\(|import\(/)
      }
      for (const file of ['popup.html', 'options.html']) {
        const html = readFileSync(join(dir, file), 'utf8')
        expect(html).not.toMatch(/<script(?![^>]*\ssrc="[a-z]+\.js")/)
        expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
      }
    }
  })
})

describe('the differences', () => {
  test('Chromium runs a service worker and names its minimum version', () => {
    expect(chromium.background).toEqual({ service_worker: 'background.js' })
    expect(chromium.minimum_chrome_version).toBe('127')
    expect(chromium.browser_specific_settings).toBeUndefined()
  })

  test('Firefox runs an event page, has a gecko id and minimum version, states what it transmits', () => {
    expect(firefox.background).toEqual({ scripts: ['background.js'] })
    expect(firefox.minimum_chrome_version).toBeUndefined()
    expect(firefox.browser_specific_settings.gecko).toEqual({
      id: 'readlater@readlater.extension',
      strict_min_version: '140.0',
      data_collection_permissions: { required: ['browsingActivity', 'websiteContent'] },
    })
    expect(firefox.browser_specific_settings.gecko_android).toEqual({ strict_min_version: '142.0' })
    // Everything else is the same manifest.
    const { background: _b, browser_specific_settings: _s, ...firefoxRest } = firefox
    const { background: _c, minimum_chrome_version: _m, ...chromiumRest } = chromium
    expect(firefoxRest).toEqual(chromiumRest)
  })

  test('each build says which browser it is for', () => {
    expect(readFileSync(join(build.chromium, 'options.js'), 'utf8')).toContain('"chromium"')
    expect(readFileSync(join(build.firefox, 'options.js'), 'utf8')).toContain('"firefox"')
  })
})

test('the zips hold the unpacked builds, file for file', () => {
  for (const [zip, dir] of [
    [build.chromiumZip, build.chromium],
    [build.firefoxZip, build.firefox],
  ] as const) {
    const entries = unzipSync(readFileSync(zip))
    expect(Object.keys(entries).sort()).toEqual(
      [
        'background.js',
        'extension.css',
        'icons/icon-128.png',
        'icons/icon-16.png',
        'icons/icon-32.png',
        'icons/icon-48.png',
        'manifest.json',
        'options.html',
        'options.js',
        'popup.html',
        'popup.js',
      ].sort(),
    )
    for (const [name, bytes] of Object.entries(entries))
      expect(Buffer.from(bytes).equals(readFileSync(join(dir, name)))).toBe(true)
  }
})

test('web-ext lint passes on the Firefox build, offline, with no warning', async () => {
  const proc = Bun.spawn(
    [
      join(ROOT, 'node_modules/.bin/web-ext'),
      'lint',
      '--source-dir',
      build.firefox,
      '--output',
      'json',
      '--no-config-discovery',
    ],
    { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const report = JSON.parse(out)
  expect({ errors: report.errors, warnings: report.warnings, notices: report.notices }).toEqual({
    errors: [],
    warnings: [],
    notices: [],
  })
}, 60_000)
