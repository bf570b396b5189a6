// The options page (docs/extension.md#connect): the server's address, Connect (the connect page through
// identity.launchWebAuthFlow, then /connect/exchange), then "Connected as …" and Disconnect.
import { ApiError, api, joinUrl, NetworkError, request } from './api.ts'
import { ext, TARGET } from './browser.ts'
import {
  challengeOf,
  chromiumName,
  connectPageUrl,
  CONNECT_CLIENT,
  deviceHint,
  newVerifier,
  originPattern,
  readRedirect,
  serverAddress,
} from './connect.ts'
import { h } from './dom.ts'
import {
  type Connection,
  forgetConnection,
  isConnectionChange,
  loadConnection,
  markNeedsReconnect,
  needsReconnect,
  saveConnection,
} from './settings.ts'

const form = document.getElementById('connect-form') as HTMLFormElement
const input = document.getElementById('server') as HTMLInputElement
const connectButton = document.getElementById('connect') as HTMLButtonElement
const connected = document.getElementById('connected')!
const status = document.getElementById('status')!

/** A message for the person; `error` shows it as one. */
function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text
  status.classList.toggle('error', kind === 'error')
}

class ConnectFailure extends Error {}

// ---- Host permission for the server's origin, asked for only when not held already.
// permissions.request must run inside the click (Firefox refuses it after an await), so whether the
// permission is held is learnt as the address is typed, and the click asks at once when it is not.
const held = new Map<string, boolean>()

function learnPermission(): void {
  const address = serverAddress(input.value)
  if (!address) return
  const pattern = originPattern(address)
  if (held.has(pattern)) return
  void ext.permissions.contains({ origins: [pattern] }).then((yes) => {
    held.set(pattern, yes)
    input.dataset.access = yes ? 'granted' : 'ask'
  })
}

const hostOfPattern = (pattern: string): string => pattern.replace(/^[a-z]+:\/\//, '').replace(/\/\*$/, '')

async function ensurePermission(pattern: string): Promise<void> {
  let yes = held.get(pattern)
  if (yes === undefined) yes = await ext.permissions.contains({ origins: [pattern] })
  if (!yes)
    yes = await ext.permissions.request({ origins: [pattern] }).catch(() => {
      // Firefox refuses a request that no longer counts as part of the click: the next click asks at once.
      held.set(pattern, false)
      throw new ConnectFailure(`Readlater needs access to ${hostOfPattern(pattern)}: press Connect again to allow it.`)
    })
  held.set(pattern, yes)
  if (!yes)
    throw new ConnectFailure(
      `Readlater needs access to ${hostOfPattern(pattern)} to talk to your server. Press Connect again and allow it.`,
    )
}

// ---- Connect

async function discoverBase(app: string): Promise<string> {
  let answer: Awaited<ReturnType<typeof request>>
  try {
    answer = await request(joinUrl(app, '/.well-known/oauth-protected-resource'), { timeoutMs: 15_000 })
  } catch {
    throw new ConnectFailure(`Could not reach ${app}. Check the address and that the server is running.`)
  }
  const resource = (answer.body as { resource?: unknown } | null)?.resource
  if (answer.status === 200 && typeof resource === 'string' && serverAddress(resource)) return serverAddress(resource)!
  if (answer.status === 404 || answer.status === 200)
    throw new ConnectFailure(
      `${app} does not look like a Readlater server. Check the address (the one you open Readlater at).`,
    )
  throw new ConnectFailure(`${app} answered ${answer.status}. Try again later.`)
}

async function browserName(): Promise<string> {
  if (TARGET === 'firefox') return 'Firefox'
  return chromiumName(
    (navigator as Navigator & { userAgentData?: { brands: { brand: string }[] } }).userAgentData?.brands,
  )
}

async function connect(): Promise<void> {
  const app = serverAddress(input.value)
  if (!app) throw new ConnectFailure('Enter the address of your Readlater server, like https://read.example.com.')
  await ensurePermission(originPattern(app))
  say(`Connecting to ${app}…`)
  const base = await discoverBase(app)
  if (originPattern(base) !== originPattern(app)) await ensurePermission(originPattern(base))

  const verifier = newVerifier()
  const state = newVerifier()
  const name = await browserName()
  const platform = await ext.runtime.getPlatformInfo()
  const url = connectPageUrl(app, {
    redirectUri: ext.identity.getRedirectURL(),
    codeChallenge: await challengeOf(verifier),
    state,
    label: `Readlater for ${name}`,
    deviceHint: deviceHint(name, platform.os),
  })
  say('Sign in and allow access in the window that opened.')
  let responseUrl: string | undefined
  try {
    responseUrl = await ext.identity.launchWebAuthFlow({ url, interactive: true })
  } catch (error) {
    throw new ConnectFailure(
      `Connecting was cancelled or the connect page could not be shown (${error instanceof Error ? error.message : String(error)}).`,
    )
  }
  if (!responseUrl) throw new ConnectFailure('Connecting was cancelled.')
  const redirect = readRedirect(responseUrl, state)
  if ('error' in redirect) {
    if (redirect.error === 'access_denied')
      throw new ConnectFailure('You denied access, so this browser is not connected.')
    throw new ConnectFailure(`Readlater did not connect this browser (${redirect.error}).`)
  }

  let exchanged: Awaited<ReturnType<typeof request>>
  try {
    exchanged = await request(joinUrl(base, '/connect/exchange'), {
      method: 'POST',
      body: JSON.stringify({ client: CONNECT_CLIENT, code: redirect.code, codeVerifier: verifier }),
    })
  } catch {
    throw new ConnectFailure(`Could not reach ${base} to finish connecting. Try again.`)
  }
  const key = exchanged.body as { apiKey?: string; scopes?: string[]; label?: string; message?: string } | null
  if (exchanged.status !== 200 || !key?.apiKey)
    throw new ConnectFailure(`Readlater refused to finish connecting: ${key?.message ?? `HTTP ${exchanged.status}`}`)
  const connection: Connection = {
    app,
    base,
    apiKey: key.apiKey,
    label: key.label ?? '',
    scopes: key.scopes ?? [],
    email: null,
  }
  try {
    connection.email = (await api.me(connection)).email
  } catch {
    // Connected all the same; the email shows once /v1/me answers.
  }
  await saveConnection(connection)
}

// ---- The page

async function render(): Promise<void> {
  const connection = await loadConnection()
  const reconnect = await needsReconnect()
  if (connection && !input.value) input.value = connection.app
  if (!connection) {
    connected.replaceChildren()
    form.hidden = false
    connectButton.textContent = 'Connect'
    return
  }
  const queued =
    ((await ext.runtime.sendMessage({ type: 'outbox' }).catch(() => null)) as { count?: number } | null)?.count ?? 0
  const disconnect = h('button', { type: 'button', id: 'disconnect', class: 'secondary' }, 'Disconnect')
  disconnect.addEventListener('click', () => {
    void (async () => {
      const dropped =
        ((await ext.runtime.sendMessage({ type: 'clear-outbox' }).catch(() => null)) as { count?: number } | null)
          ?.count ?? 0
      await forgetConnection()
      say(
        `Disconnected${dropped ? `; ${dropped} ${dropped === 1 ? 'page' : 'pages'} waiting to be sent dropped` : ''}. The key stays listed in Readlater’s settings until you revoke it there.`,
      )
    })()
  })
  connected.replaceChildren(
    reconnect
      ? h(
          'p',
          { class: 'error', id: 'reconnect' },
          `Readlater no longer accepts this browser’s key (it may have been revoked): reconnect with Connect below.`,
        )
      : h('p', { id: 'connected-as' }, `Connected as ${connection.email ?? 'your account'}`),
    h('p', { class: 'muted' }, `Server: ${connection.app}`),
    queued ? h('p', { class: 'muted' }, `${queued} ${queued === 1 ? 'page is' : 'pages are'} waiting to be sent.`) : '',
    disconnect,
  )
  // Connected and accepted: Connect is needed again only to reconnect or switch servers.
  form.hidden = !reconnect
  connectButton.textContent = reconnect ? 'Reconnect' : 'Connect'
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  connectButton.disabled = true
  say('')
  connect()
    .then(() => say('Connected. Press the Readlater button or Alt+Shift+S on a page to save it.'))
    .catch((error) => {
      say(error instanceof ConnectFailure ? error.message : `Could not connect: ${String(error)}`, 'error')
    })
    .finally(() => {
      connectButton.disabled = false
      void render()
    })
})
input.addEventListener('input', learnPermission)

ext.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && isConnectionChange(changes)) void render()
})

async function main(): Promise<void> {
  await render()
  learnPermission()
  const connection = await loadConnection()
  // A key revoked meanwhile shows here as soon as the page opens.
  if (connection && !(await needsReconnect()))
    await api.me(connection).then(
      async (me) => {
        if (me.email !== connection.email) await saveConnection({ ...connection, email: me.email })
      },
      async (error) => {
        if (error instanceof ApiError && error.status === 401) await markNeedsReconnect()
        else if (error instanceof NetworkError) say(`${connection.app} cannot be reached right now.`, 'error')
      },
    )
  document.body.dataset.ready = 'true'
}

void main()
