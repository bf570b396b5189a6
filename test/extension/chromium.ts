import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, type CDPSession, chromium, type Page, type Worker } from 'playwright-core'
import { CHROMIUM } from '../helpers/browser.ts'

// Debian's Chromium with the built extension loaded, headless (docs/extension.md#tests). What headless
// Chromium cannot do, and what these helpers do instead (STACK.md, checked on Chromium 156):
// - the toolbar button cannot be clicked: press it through CDP (Extensions.triggerAction on the page's tab
//   target, from a browser-level session; needs --enable-unsafe-extension-debugging), which runs
//   action.onClicked with the activeTab grant of a real click;
// - the prompt of permissions.request hangs: the server's host access is granted before the test, see
//   grantHostAccess;
// - keyboard commands and context menus cannot be used: the test calls the worker's own handlers.

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((done) => setTimeout(done, 20))
  }
}

export interface ExtensionBrowser {
  context: BrowserContext
  worker: Worker
  id: string
  /** Presses the toolbar button on a page, as a click does. */
  pressButton(page: Page): Promise<void>
  /** Runs code in the extension's service worker. */
  inWorker<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T>
  close(): Promise<void>
}

const ARGS = (build: string) => [
  '--headless=new',
  `--disable-extensions-except=${build}`,
  `--load-extension=${build}`,
  '--enable-unsafe-extension-debugging',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

async function launch(profile: string, build: string, colorScheme: 'light' | 'dark') {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS(build),
    colorScheme,
    viewport: { width: 1100, height: 800 },
  })
  const worker =
    context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ??
    (await context.waitForEvent('serviceworker', { timeout: 15_000 }))
  return { context, worker, id: new URL(worker.url()).host }
}

/**
 * Grants the extension host access to `patterns` before the test, as if the person had allowed the
 * options page's permissions.request: the prompt of that request never resolves in headless Chromium, and
 * chrome://extensions (developerPrivate.addHostPermission) grants only *withheld* required host
 * permissions, never optional ones (checked: permissions.contains stays false). Chromium keeps what an
 * extension was granted in the profile's Preferences (extensions.settings.<id>: granted_permissions,
 * runtime_granted_permissions, active_permissions); the entry only exists once the extension has been installed, and
 * installing resets it. So: start Chromium once (it installs the unpacked extension and writes its entry),
 * close it, add the patterns to that entry, and start it again on the same profile: the extension's
 * permissions.contains then says yes, and its options page skips the request.
 */
function grantHostAccess(profile: string, id: string, patterns: string[]): void {
  const path = join(profile, 'Default', 'Preferences')
  const preferences = JSON.parse(readFileSync(path, 'utf8'))
  const settings = preferences.extensions?.settings?.[id]
  if (!settings) throw new Error(`no settings for extension ${id} in ${path}`)
  const add = (set: { explicit_host?: string[] } | undefined) => ({
    api: [],
    manifest_permissions: [],
    scriptable_host: [],
    ...set,
    explicit_host: [...new Set([...(set?.explicit_host ?? []), ...patterns])],
  })
  settings.granted_permissions = add(settings.granted_permissions)
  settings.runtime_granted_permissions = add(settings.runtime_granted_permissions)
  settings.active_permissions = add(settings.active_permissions)
  writeFileSync(path, JSON.stringify(preferences))
}

export async function launchExtension(
  build: string,
  options: { hostAccess?: string[]; colorScheme?: 'light' | 'dark' } = {},
): Promise<ExtensionBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'readlater-chromium-'))
  const colorScheme = options.colorScheme ?? 'light'
  let launched: Awaited<ReturnType<typeof launch>> | null = null
  try {
    launched = await launch(profile, build, colorScheme)
    if (options.hostAccess?.length) {
      await launched.context.close()
      grantHostAccess(profile, launched.id, options.hostAccess)
      launched = null
      launched = await launch(profile, build, colorScheme)
      const granted = await launched.worker.evaluate(
        (origins) => (globalThis as any).chrome.permissions.contains({ origins }),
        options.hostAccess,
      )
      if (!granted) throw new Error('host access was not granted')
    }
    const { context, worker, id } = launched
    context.setDefaultTimeout(15_000)
    let cdp: CDPSession | null = null
    return {
      context,
      worker,
      id,
      async pressButton(page) {
        cdp ??= await context.browser()!.newBrowserCDPSession()
        const session = cdp
        const targets = async () =>
          (
            (await session.send('Target.getTargets', { filter: [{ type: 'tab' }] } as never)) as {
              targetInfos: { targetId: string; url: string }[]
            }
          ).targetInfos
        const popups = async () =>
          (await targets()).filter((target) => target.url.startsWith(`chrome-extension://${id}/popup.html`))
        // The popup the last press opened still shows (in a window, going back to the page would close it;
        // headless, nothing does), and pressing the button while it shows only closes it: close it first.
        for (const popup of await popups())
          await session.send('Target.closeTarget', { targetId: popup.targetId } as never).catch(() => {})
        await waitFor(async () => (await popups()).length === 0)
        await page.bringToFront()
        const tab = (await targets()).find((target) => target.url === page.url())
        if (!tab) throw new Error(`no tab target for ${page.url()}`)
        await session.send('Extensions.triggerAction' as never, { id, targetId: tab.targetId } as never)
        // Every save opens the popup (action.openPopup): wait for it, so that the next press finds it.
        await waitFor(async () => (await popups()).length > 0).catch(() => {})
      },
      inWorker: <T, A>(fn: (arg: A) => T | Promise<T>, arg?: A) =>
        // The worker may have been stopped and started again since: ask the context for the current one.
        (context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${id}/`)) ?? worker).evaluate(
          fn as never,
          arg as never,
        ) as Promise<T>,
      async close() {
        await context.close().catch(() => {})
        rmSync(profile, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await launched?.context.close().catch(() => {})
    rmSync(profile, { recursive: true, force: true })
    throw error
  }
}
