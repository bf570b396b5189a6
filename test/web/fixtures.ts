import { uuidv7 } from '../../core/ids.ts'
import { oauthClients, oauthGrants } from '../../adapters/storage/schema.ts'
import { findUserByEmail, insertUser } from '../../adapters/storage/users.ts'
import { hashPassword } from '../../adapters/app/passwords.ts'
import { createHarness, random, type Harness } from '../helpers/harness.ts'
import { apiKeyFor } from './reader-fixtures.ts'
import { WebClient } from './web-client.ts'

/** A registered OAuth client and one person's grant to it, as the OAuth flow would leave them. */
export async function insertAgent(
  h: Harness,
  userId: string,
  clientName: string,
  scopes: string[],
): Promise<{ clientId: string; grantId: string }> {
  const now = h.clock.now().toISOString()
  const clientId = uuidv7(h.clock.now().getTime(), random)
  await h.db.insert(oauthClients).values({
    id: clientId,
    name: clientName,
    redirectUris: ['http://127.0.0.1/cb'],
    grantTypes: ['authorization_code'],
    scope: scopes.join(' '),
    metadata: { client_name: clientName },
    createdAt: now,
  })
  const grantId = uuidv7(h.clock.now().getTime(), random)
  await h.db
    .insert(oauthGrants)
    .values({ id: grantId, userId, clientId, scopes, resource: h.config.baseUrl, createdAt: now })
  return { clientId, grantId }
}

export async function userIdOf(h: Harness, email: string): Promise<string> {
  const user = await findUserByEmail(h.db, email)
  if (!user) throw new Error(`no user ${email}`)
  return user.id
}

/** Every row of the tables the web pages write, for "nothing was written" checks. */
export async function snapshot(h: Harness): Promise<string> {
  const tables = [
    'users',
    'web_sessions',
    'api_keys',
    'oauth_clients',
    'oauth_grants',
    'saved_items',
    'folders',
    'highlights',
  ]
  const dump: Record<string, unknown> = {}
  for (const table of tables) dump[table] = (await h.db.$client.execute(`SELECT * FROM ${table} ORDER BY rowid`)).rows
  return JSON.stringify(dump)
}

/** A person who can sign in with `password` (argon2id-hashed, as sign-up stores it); returns their id. */
export async function userWithPassword(h: Harness, email: string, password: string): Promise<string> {
  const id = crypto.randomUUID()
  await insertUser(h.db, {
    id,
    email,
    passwordHash: await hashPassword(password),
    createdAt: h.clock.now().toISOString(),
  })
  return id
}

/**
 * A person signed up and signed in through the pages (on the queue page, so the client holds its CSRF
 * token), with an API key of every scope to check outcomes through the API.
 */
export async function signedInWithKey(
  email: string,
  harness?: Harness,
): Promise<{ h: Harness; web: WebClient; userId: string; key: string }> {
  const h = harness ?? (await createHarness({ env: { IP_RATE_LIMIT_MAX: '1000' } }))
  const web = new WebClient(h)
  await web.signUp(email)
  await web.get('/')
  const userId = await userIdOf(h, email)
  const key = await apiKeyFor(h, userId)
  return { h, web, userId, key }
}
