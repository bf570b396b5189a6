import type { Principal } from '../../core/types.ts'
import { listApiKeys, type ApiKeyRow } from '../storage/api-keys.ts'
import { listActiveGrants, type ConnectedAgent } from '../storage/oauth-grants.ts'
import { findUserById } from '../storage/users.ts'
import { recentDeliveries } from '../storage/webhooks.ts'
import type { AppDeps } from './deps.ts'
import { importsOf, type ImportDto } from './imports.ts'
import { imageStorageOf } from './item-images.ts'
import { deliveryDto, RECENT_DELIVERIES, webhooksOf, type DeliveryDto, type WebhookDto } from './webhooks.ts'

// What the web app's settings page lists (docs/web.md#pages), read in the queries it always took.

/** How long settings tells the owner that someone tried to sign up with their email. */
const SIGNUP_ATTEMPT_NOTICE_DAYS = 30

export interface SettingsRead {
  /** The person's API keys, newest first. */
  keys: ApiKeyRow[]
  agents: ConnectedAgent[]
  /** Key id → the label of the key or the name of the agent that issued it (connect flow). */
  issuedBy: Map<string, string>
  /** When someone last tried to sign up with this account's email, within the last 30 days. */
  signupAttemptedAt: string | null
  imports: ImportDto[]
  /** The person's webhooks, oldest first, each with its newest deliveries. */
  webhooks: { webhook: WebhookDto; deliveries: DeliveryDto[] }[]
  /** Bytes of the archived images of the person's items (docs/reading.md#archived-images). */
  imageBytes: number
}

export async function readSettings(deps: AppDeps, principal: Principal): Promise<SettingsRead> {
  const { db } = deps
  const userId = principal.userId
  const [keys, agents, user, imports, webhooks, imageBytes] = await Promise.all([
    listApiKeys(db, userId),
    listActiveGrants(db, userId),
    findUserById(db, userId),
    importsOf(deps, principal),
    webhookPanels(deps, principal),
    imageStorageOf(deps, principal),
  ])
  keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id.localeCompare(a.id)))
  // A key issued through the connect flow names its issuer; while the key is in force so is the issuer.
  const labels = new Map(keys.map((key) => [key.id, key.label]))
  const clients = new Map(agents.map((agent) => [agent.grantId, agent.clientName]))
  const issuedBy = new Map(
    keys.flatMap((key) => {
      const name = key.issuedByKeyId
        ? labels.get(key.issuedByKeyId)
        : key.issuedByGrantId
          ? clients.get(key.issuedByGrantId)
          : undefined
      return name === undefined ? [] : [[key.id, name] as const]
    }),
  )
  const attempt = user?.signupAttemptedAt ?? null
  const signupAttemptedAt =
    attempt && deps.clock.now().getTime() - Date.parse(attempt) < SIGNUP_ATTEMPT_NOTICE_DAYS * 86_400_000
      ? attempt
      : null
  return { keys, agents, issuedBy, signupAttemptedAt, imports, webhooks, imageBytes }
}

/**
 * The person's webhooks with their newest deliveries. Read straight from storage for webhooks just listed
 * as theirs: through `deliveriesOf`, one deleted in between (another tab) would fail the whole page.
 */
async function webhookPanels(deps: AppDeps, principal: Principal): Promise<SettingsRead['webhooks']> {
  const { webhooks } = await webhooksOf(deps, principal)
  return Promise.all(
    webhooks.map(async (webhook) => ({
      webhook,
      deliveries: (await recentDeliveries(deps.db, webhook.id, RECENT_DELIVERIES)).map(deliveryDto),
    })),
  )
}
