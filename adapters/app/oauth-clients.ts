import { uuidv7 } from '../../core/ids.ts'
import type { ClientRegistration } from '../../core/oauth/client-registration.ts'
import { toTimestamp } from '../../core/time.ts'
import { insertClient, upsertClient, type ClientRow } from '../storage/oauth.ts'
import type { AppDeps } from './deps.ts'

/**
 * Registers a public OAuth client (RFC 7591, docs/oauth.md#registration) from metadata already
 * validated, and returns the client's metadata as registered: what the registration endpoint answers.
 */
export async function registerClient(deps: AppDeps, registration: ClientRegistration) {
  const now = deps.clock.now()
  const clientId = uuidv7(now.getTime(), deps.random)
  const metadata = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: registration.clientName,
    redirect_uris: registration.redirectUris,
    grant_types: registration.grantTypes,
    response_types: registration.responseTypes,
    token_endpoint_auth_method: 'none',
    ...(registration.scope ? { scope: registration.scope } : {}),
  }
  await insertClient(deps.db, {
    id: clientId,
    name: registration.clientName,
    redirectUris: registration.redirectUris,
    grantTypes: registration.grantTypes,
    scope: registration.scope,
    metadata,
    createdAt: now.toISOString(),
  })
  return metadata
}

/**
 * Stores the client behind a metadata-document `client_id` (docs/oauth.md#registration) from
 * its document, already fetched and validated: created on first use, its name, redirect URIs, grant types
 * and scope refreshed on every later one. Returns the client as stored.
 */
export function storeMetadataClient(
  deps: AppDeps,
  clientId: string,
  registration: Pick<ClientRegistration, 'clientName' | 'redirectUris' | 'grantTypes' | 'scope'>,
): Promise<ClientRow> {
  const now = toTimestamp(deps.clock.now())
  return upsertClient(deps.db, {
    id: clientId,
    name: registration.clientName,
    redirectUris: registration.redirectUris,
    grantTypes: registration.grantTypes,
    scope: registration.scope,
    metadata: { client_id_metadata_document: true, fetched_at: now },
    createdAt: now,
  })
}
