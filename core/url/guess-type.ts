import type { ItemType } from '../types.ts'

/** First path segments that are GitHub product pages, not owners. */
const GITHUB_RESERVED: ReadonlySet<string> = new Set([
  'about',
  'account',
  'apps',
  'collections',
  'codespaces',
  'contact',
  'customer-stories',
  'dashboard',
  'enterprise',
  'events',
  'explore',
  'features',
  'issues',
  'join',
  'login',
  'logout',
  'marketplace',
  'new',
  'notifications',
  'orgs',
  'organizations',
  'pricing',
  'pulls',
  'readme',
  'search',
  'security',
  'settings',
  'signup',
  'site',
  'sponsors',
  'stars',
  'team',
  'topics',
  'trending',
  'users',
])
const GITLAB_RESERVED: ReadonlySet<string> = new Set([
  '-',
  'admin',
  'api',
  'dashboard',
  'explore',
  'groups',
  'help',
  'oauth',
  'profile',
  'projects',
  'search',
  'snippets',
  'users',
])
const CODEBERG_RESERVED: ReadonlySet<string> = new Set([
  'admin',
  'api',
  'assets',
  'explore',
  'notifications',
  'org',
  'repo',
  'user',
])
const BITBUCKET_RESERVED: ReadonlySet<string> = new Set([
  'account',
  'dashboard',
  'product',
  'repo',
  'site',
  'socialauth',
  'workspace',
])
const REPOSITORY_HOSTS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['github.com', GITHUB_RESERVED],
  ['gitlab.com', GITLAB_RESERVED],
  ['codeberg.org', CODEBERG_RESERVED],
  ['bitbucket.org', BITBUCKET_RESERVED],
])

type VideoRule = (segments: readonly string[], query: URLSearchParams) => boolean

const DIGITS = /^\d+$/
const youtubeRule: VideoRule = ([first, second], query) =>
  first === 'watch'
    ? (query.get('v') ?? '') !== ''
    : (first === 'shorts' || first === 'embed' || first === 'live') && second !== undefined
const shortLinkRule: VideoRule = ([first]) => first !== undefined

const VIDEO_RULES: ReadonlyMap<string, VideoRule> = new Map([
  ['youtube.com', youtubeRule],
  ['m.youtube.com', youtubeRule],
  ['music.youtube.com', youtubeRule],
  ['youtube-nocookie.com', youtubeRule],
  ['youtu.be', shortLinkRule],
  ['dai.ly', shortLinkRule],
  ['vimeo.com', ([first = '']) => DIGITS.test(first)],
  ['player.vimeo.com', ([first, second = '']) => first === 'video' && DIGITS.test(second)],
  ['dailymotion.com', ([first, second]) => first === 'video' && second !== undefined],
  ['twitch.tv', ([first, second]) => first === 'videos' && second !== undefined],
  ['loom.com', ([first, second]) => first === 'share' && second !== undefined],
  ['tiktok.com', ([first = '', second, third]) => first.startsWith('@') && second === 'video' && third !== undefined],
])

/**
 * The item type a URL suggests before its page is fetched: `video` for known video hosts' video
 * pages, `repository` for a repository on GitHub, GitLab, Codeberg or Bitbucket, else `website`.
 * Never throws: an unparsable input is a `website`.
 * @see docs/api.md#captures and docs/enrichment.md
 */
export function guessItemType(normalizedUrl: string): ItemType {
  let url: URL
  try {
    url = new URL(normalizedUrl)
  } catch {
    return 'website'
  }
  // Enrichment also calls this with final and canonical URLs, which are not normalized.
  const host = url.hostname.replace(/\.$/, '').replace(/^www\./, '')
  // Empty segments are dropped, so `/a//b/` reads as `a`, `b` and a rule never sees an empty id.
  const segments = url.pathname.split('/').filter((segment) => segment !== '')
  if (VIDEO_RULES.get(host)?.(segments, url.searchParams) === true) return 'video'
  if (isRepository(host, segments)) return 'repository'
  return 'website'
}

function isRepository(host: string, segments: readonly string[]): boolean {
  const reserved = REPOSITORY_HOSTS.get(host)
  const [owner, repository] = segments
  if (reserved === undefined || owner === undefined || repository === undefined) return false
  // GitLab puts group-level pages under `/<group>/-/…`; those are not a project.
  return !reserved.has(owner.toLowerCase()) && repository !== '-'
}
