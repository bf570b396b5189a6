import { isAppError } from '../../../core/errors.ts'
import type { AppDeps } from '../../app/deps.ts'
import { captureUrl } from '../../app/saved-items.ts'
import type { WebSession } from '../browser-session.ts'
import { sessionPrincipal } from './reader.ts'

/**
 * A URL captured from a page (the queue's field, /save): through the capture rules with channel
 * web-companion; null when it is no URL that can be saved (the page says so, nothing is written).
 */
export async function captureFromPage(
  deps: AppDeps,
  session: WebSession,
  url: string,
): Promise<{ created: boolean; url: string } | null> {
  try {
    const { created, savedItem } = await captureUrl(deps, sessionPrincipal(session), {
      url,
      captureChannel: 'web-companion',
    })
    return { created, url: savedItem.originalUrl }
  } catch (error) {
    if (isAppError(error) && error._tag === 'InvalidUrlError') return null
    throw error
  }
}
