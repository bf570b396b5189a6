import { MAX_CLIENT_METADATA_BYTES, validateClientIdMetadataDocument } from '../../core/oauth/client-id-metadata.ts'
import { isOAuthError } from '../../core/oauth/oauth-error.ts'
import { guardedFetch, type FetchedPage } from '../enrichment/guarded-fetch.ts'
import type { AppDeps } from '../app/deps.ts'
import { storeMetadataClient } from '../app/oauth-clients.ts'
import type { ClientRow } from '../storage/oauth.ts'

const JSON_TYPES: ReadonlySet<string> = new Set(['application/json'])
const FETCH_TIMEOUT_MS = 5_000

/** The guarded fetch for metadata documents: public addresses only, no redirects, 5 KiB, 5 s, JSON. */
function fetchDocument(deps: AppDeps, url: string): Promise<FetchedPage> {
  if (deps.fetchClientMetadata) return deps.fetchClientMetadata(url)
  return guardedFetch(url, {
    allowPrivate: false,
    userAgent: `Readlater/1.0 (+${deps.config.baseUrl})`,
    timeoutMs: FETCH_TIMEOUT_MS,
    maxBytes: MAX_CLIENT_METADATA_BYTES,
    maxRedirects: 0,
    bodyTypes: JSON_TYPES,
    accept: 'application/json',
  })
}

export type MetadataClient = { kind: 'client'; client: ClientRow } | { kind: 'problem'; message: string }

/**
 * The client behind a metadata-document `client_id`, read fresh from its URL on every authorization
 * request (so a client's changed redirect URIs or name apply at once) and stored as an OAuth client
 * under that URL, so codes, grants, tokens and the settings page treat it like any registered client.
 */
export async function resolveMetadataClient(deps: AppDeps, clientId: string): Promise<MetadataClient> {
  const host = new URL(clientId).host
  let page: FetchedPage
  try {
    page = await fetchDocument(deps, clientId)
  } catch (error) {
    deps.log('warn', {
      msg: 'client metadata document not fetched',
      host,
      error: error instanceof Error ? error.message : 'unknown',
    })
    return {
      kind: 'problem',
      message: `The application's metadata could not be read from ${host}, so it cannot be trusted.`,
    }
  }
  if (page.truncated || page.body.byteLength === 0) {
    return {
      kind: 'problem',
      message: `The application's metadata at ${host} is not a JSON document of at most ${MAX_CLIENT_METADATA_BYTES} bytes.`,
    }
  }
  let registration
  try {
    registration = validateClientIdMetadataDocument(
      JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(page.body)),
      clientId,
    )
  } catch (error) {
    const reason = isOAuthError(error) ? error.message : 'it is not valid JSON'
    return { kind: 'problem', message: `The application's metadata at ${host} cannot be used: ${reason}.` }
  }
  const client = await storeMetadataClient(deps, clientId, registration)
  return { kind: 'client', client }
}
