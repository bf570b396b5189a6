import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Debian's Firefox ESR with the built extension, driven over WebDriver BiDi (Firefox's own remote protocol;
// playwright-core drives only its own Firefox builds). What BiDi alone cannot reach (an extension's pages,
// the toolbar button) is reached with system access (--remote-allow-system-access): script in the browser
// window opens the options page and presses the button as the keyboard shortcut does.

export const FIREFOX =
  process.env.FIREFOX_PATH ?? ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((path) => existsSync(path)) ?? null

export const GECKO_ID = 'readlater@readlater.extension'
/** The extension's internal UUID, fixed by a pref, so its pages have a known address. */
export const EXTENSION_UUID = '3f1b6a0e-5c1d-4c3a-9d7e-2b8f6e4a1c01'
export const EXTENSION_ORIGIN = `moz-extension://${EXTENSION_UUID}`

type Json = any

export interface FirefoxWithExtension {
  /** One BiDi command. */
  send(method: string, params?: Json): Promise<Json>
  /** Evaluates in a browsing context (awaiting a promise); the value, deserialized from BiDi's form. */
  evaluate<T = Json>(context: string, expression: string): Promise<T>
  /** Evaluates in the browser window, with system access. */
  evaluateChrome<T = Json>(expression: string): Promise<T>
  /** The content browsing contexts (tabs and windows) and their URLs. */
  contexts(): Promise<{ context: string; url: string }[]>
  /** Waits for a context whose URL passes `test`. */
  contextWhere(test: (url: string) => boolean, timeoutMs?: number): Promise<string>
  /** Clicks an element as a person does (trusted input), by CSS selector. */
  click(context: string, selector: string): Promise<void>
  /** Opens one of the extension's pages in a new tab; its context. */
  openExtensionPage(path: string): Promise<string>
  /** Presses the toolbar button for the selected tab, as Alt+Shift+S does (activeTab granted). */
  pressButton(): Promise<void>
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** A BiDi remote value as plain JSON. */
function deserialize(value: Json): Json {
  switch (value?.type) {
    case 'undefined':
    case 'null':
      return value.type === 'null' ? null : undefined
    case 'string':
    case 'number':
    case 'boolean':
      return value.value
    case 'array':
      return value.value.map(deserialize)
    case 'object':
      return Object.fromEntries(
        value.value.map(([k, v]: [Json, Json]) => [typeof k === 'string' ? k : deserialize(k), deserialize(v)]),
      )
    default:
      return value?.value
  }
}

export async function launchFirefox(extensionDir: string): Promise<FirefoxWithExtension> {
  if (!FIREFOX) throw new Error('no Firefox')
  const profile = mkdtempSync(join(tmpdir(), 'readlater-firefox-'))
  writeFileSync(
    join(profile, 'user.js'),
    [
      // The extension's pages at a known address.
      `user_pref("extensions.webextensions.uuids", ${JSON.stringify(JSON.stringify({ [GECKO_ID]: EXTENSION_UUID }))});`,
      // permissions.request, from a real click, is granted without its prompt (which headless cannot answer).
      'user_pref("extensions.webextOptionalPermissionPrompts", false);',
      // No first-run pages, updates or telemetry: the machine has no outside network.
      'user_pref("browser.shell.checkDefaultBrowser", false);',
      'user_pref("browser.startup.homepage_override.mstone", "ignore");',
      'user_pref("browser.startup.page", 0);',
      'user_pref("datareporting.policy.dataSubmissionEnabled", false);',
      'user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);',
      'user_pref("app.update.disabledForTesting", true);',
      'user_pref("extensions.update.enabled", false);',
      'user_pref("network.captive-portal-service.enabled", false);',
      'user_pref("network.connectivity-service.enabled", false);',
      'user_pref("browser.safebrowsing.update.enabled", false);',
    ].join('\n'),
  )
  const proc = Bun.spawn(
    [
      FIREFOX,
      '--headless',
      '--no-remote',
      '--profile',
      profile,
      '--remote-debugging-port',
      '0',
      '--remote-allow-system-access',
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  const cleanup = async () => {
    proc.kill()
    await proc.exited
    rmSync(profile, { recursive: true, force: true })
  }
  try {
    let address = ''
    let output = ''
    const decoder = new TextDecoder()
    const reader = proc.stderr.getReader()
    const deadline = Date.now() + 30_000
    while (!address) {
      const { done, value } = await Promise.race([
        reader.read(),
        sleep(Math.max(0, deadline - Date.now())).then(() => ({ done: true, value: undefined })),
      ])
      if (done) throw new Error(`Firefox did not start its remote agent: ${output}`)
      output += decoder.decode(value, { stream: true })
      address = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? ''
    }
    // Keep reading, so Firefox never blocks on a full pipe.
    void (async () => {
      for (;;) if ((await reader.read()).done) break
    })().catch(() => {})
    const socket = new WebSocket(`${address}/session`)
    await new Promise((done, fail) => {
      socket.addEventListener('open', done)
      socket.addEventListener('error', fail)
    })
    let ids = 0
    const pending = new Map<number, { done: (v: Json) => void; fail: (e: Error) => void }>()
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data))
      const waiting = message.id === undefined ? undefined : pending.get(message.id)
      if (!waiting) return
      pending.delete(message.id)
      if (message.type === 'error') waiting.fail(new Error(`${message.error}: ${message.message}`))
      else waiting.done(message.result)
    })
    const send = (method: string, params: Json = {}) =>
      new Promise<Json>((done, fail) => {
        const id = ++ids
        pending.set(id, { done, fail })
        socket.send(JSON.stringify({ id, method, params }))
      })
    await send('session.new', { capabilities: {} })
    await send('webExtension.install', { extensionData: { type: 'path', path: extensionDir } })
    const chromeWindow = (await send('browsingContext.getTree', { 'moz:scope': 'chrome' })).contexts[0].context

    const evaluate = async (context: string, expression: string) => {
      const reply = await send('script.evaluate', { expression, target: { context }, awaitPromise: true })
      if (reply.type === 'exception') throw new Error(`${expression}: ${reply.exceptionDetails.text}`)
      return deserialize(reply.result)
    }
    const contexts = async () =>
      ((await send('browsingContext.getTree', {})).contexts as Json[]).map((c) => ({ context: c.context, url: c.url }))
    const contextWhere = async (test: (url: string) => boolean, timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs
      for (;;) {
        const found = (await contexts()).find((c) => test(c.url))
        if (found) return found.context
        if (Date.now() > until) throw new Error(`no such context among ${JSON.stringify(await contexts())}`)
        await sleep(50)
      }
    }
    const firefox: FirefoxWithExtension = {
      send,
      evaluate,
      evaluateChrome: (expression) => evaluate(chromeWindow, expression),
      contexts,
      contextWhere,
      async click(context, selector) {
        const box = await evaluate(
          context,
          `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 } })()`,
        )
        await send('input.performActions', {
          context,
          actions: [
            {
              type: 'pointer',
              id: 'mouse',
              actions: [
                { type: 'pointerMove', x: Math.round(box.x), y: Math.round(box.y) },
                { type: 'pointerDown', button: 0 },
                { type: 'pointerUp', button: 0 },
              ],
            },
          ],
        })
      },
      async openExtensionPage(path) {
        const url = `${EXTENSION_ORIGIN}/${path}`
        await evaluate(
          chromeWindow,
          `(() => { gBrowser.selectedTab = gBrowser.addTab(${JSON.stringify(url)}, { triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }) })()`,
        )
        return contextWhere((u) => u === url)
      },
      async pressButton() {
        // What the _execute_action command does: the action's click, with activeTab for the selected tab.
        await evaluate(
          chromeWindow,
          `(async () => {
            const { ExtensionParent } = ChromeUtils.importESModule('resource://gre/modules/ExtensionParent.sys.mjs')
            const extension = WebExtensionPolicy.getByID(${JSON.stringify(GECKO_ID)}).extension
            await ExtensionParent.apiManager.global.browserActionFor(extension).triggerAction(window)
          })()`,
        )
      },
      async close() {
        await send('session.end', {}).catch(() => {})
        socket.close()
        await cleanup()
      },
    }
    return firefox
  } catch (error) {
    await cleanup()
    throw error
  }
}
