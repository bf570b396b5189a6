import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { guessItemType } from '../../../core/url/guess-type.ts'
import type { ItemType } from '../../../core/types.ts'

const rows: readonly [url: string, type: ItemType][] = [
  ['https://youtube.com/watch?v=dQw4w9WgXcQ', 'video'],
  ['https://m.youtube.com/watch?v=dQw4w9WgXcQ&t=42', 'video'],
  ['https://music.youtube.com/watch?v=abc', 'video'],
  ['https://youtube.com/shorts/abc123', 'video'],
  ['https://youtube.com/embed/abc123', 'video'],
  ['https://youtube.com/live/abc123', 'video'],
  ['https://youtu.be/dQw4w9WgXcQ', 'video'],
  ['https://www.youtube.com/watch?v=abc', 'video'],
  ['https://vimeo.com/76979871', 'video'],
  ['https://player.vimeo.com/video/76979871', 'video'],
  ['https://dailymotion.com/video/x8abc', 'video'],
  ['https://twitch.tv/videos/123456', 'video'],
  ['https://loom.com/share/0123abcd', 'video'],
  ['https://tiktok.com/@someone/video/7212345678901234567', 'video'],
  ['https://youtube.com/watch', 'website'],
  ['https://youtube.com/@channel', 'website'],
  ['https://youtube.com/', 'website'],
  ['https://youtu.be/', 'website'],
  ['https://vimeo.com/channels/staffpicks', 'website'],
  ['https://twitch.tv/somestreamer', 'website'],
  ['https://tiktok.com/@someone', 'website'],
  ['https://github.com/denoland/std', 'repository'],
  ['https://github.com/denoland/std/blob/main/README.md', 'repository'],
  ['https://github.com/denoland/std/issues/1', 'repository'],
  ['https://github.com/denoland', 'website'],
  ['https://github.com/settings/profile', 'website'],
  ['https://github.com/orgs/denoland/repositories', 'website'],
  ['https://github.com/topics/typescript', 'website'],
  ['https://github.com/marketplace/actions/checkout', 'website'],
  ['https://github.com/Trending/typescript', 'website'],
  ['https://github.com/', 'website'],
  ['https://gitlab.com/gitlab-org/gitlab', 'repository'],
  ['https://gitlab.com/gitlab-org/subgroup/project/-/merge_requests/1', 'repository'],
  ['https://gitlab.com/gitlab-org/-/epics', 'website'],
  ['https://gitlab.com/explore/projects', 'website'],
  ['https://gitlab.com/users/sign_in', 'website'],
  ['https://gitlab.com/gitlab-org', 'website'],
  ['https://codeberg.org/forgejo/forgejo', 'repository'],
  ['https://codeberg.org/explore/repos', 'website'],
  ['https://bitbucket.org/atlassian/python-bitbucket', 'repository'],
  ['https://bitbucket.org/product/features', 'website'],
  ['https://example.com/watch?v=abc', 'website'],
  ['https://example.com/owner/repo', 'website'],
  ['https://blog.github.com/owner/repo', 'website'],
  ['not a url', 'website'],
]

describe('guessItemType()', () => {
  for (const [url, type] of rows) {
    test(`guessItemType() classifies ${url} as ${type}`, () => {
      assert.equal(guessItemType(url), type)
    })
  }
})
