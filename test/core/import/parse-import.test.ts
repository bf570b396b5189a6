import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { zipSync } from 'fflate'
import { parseImportFile } from '../../../core/import/parse-import.ts'
import {
  IMPORT_FORMATS,
  IMPORT_MAX_BYTES,
  type ImportEntry,
  type ImportFormat,
  ImportFormatError,
  type ParsedEntry,
} from '../../../core/import/types.ts'
import { omnivoreZip, pocketZip, readFixture } from '../../fixtures/import/read-fixture.ts'
import { omnivorePage } from '../../../core/import/omnivore.ts'

// docs/import-export.md#formats and #detection: every fixture (shaped like the real export, see
// test/fixtures/import/README.md) read without naming its format, entry for entry.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const encoder = new TextEncoder()

/** An imported entry; `lastSavedAt` is null unless given (only our own export has it). */
function ok(
  entry: Omit<ImportEntry, 'lastSavedAt' | 'highlights' | 'highlightProblem' | 'page'> &
    Partial<Pick<ImportEntry, 'lastSavedAt' | 'highlights' | 'highlightProblem' | 'page'>>,
): ParsedEntry {
  return {
    ok: true,
    entry: { lastSavedAt: null, highlights: [], highlightProblem: null, page: null, ...entry } as ImportEntry,
  }
}
function failed(line: number, message: string): ParsedEntry {
  return { ok: false, error: { line, message } }
}
const none = { folder: null, tags: [], droppedTags: [] }

/** A highlight as Omnivore's Markdown gives it: a quote and a note, nothing else. */
const omnivoreHighlight = (exact: string, note: string | null = null) => ({
  sourceId: null,
  quote: { exact, prefix: '', suffix: '' },
  position: null,
  color: 'yellow' as const,
  note,
  createdAt: null,
  updatedAt: null,
})
// highlights/<slug>.md of the fixtures, as plain text: Markdown links, emphasis and escapes undone; a
// quote's paragraphs kept apart; the note is everything after the quote (labels included).
const TYRANNY_HIGHLIGHTS = [
  omnivoreHighlight('Everything feels obvious in hindsight.'),
  omnivoreHighlight(
    'Historians call this hindsight bias, and it shapes how we judge the people who came before us.',
    '#history #psychology\n\nCompare with Kahneman, chapter 19.',
  ),
  omnivoreHighlight('Rule #1: never trust a story that explains everything.'),
  omnivoreHighlight(
    'The cure is not more knowledge but more humility.\n\nA decision made in fog should be judged in fog.',
    'Two paragraphs at once.\nAnd a second line of the note.',
  ),
]
const LLM_HIGHLIGHTS = [
  omnivoreHighlight(
    'Word vectors are a useful building block for language models.',
    'They encode subtle but important information about the relationships between words.',
  ),
]
const TYRANNY_PAGE = () =>
  omnivorePage(
    new TextDecoder().decode(readFixture('omnivore/content/the-tyranny-of-obviousness-18a7f7a3b2e.html')),
    'The Tyranny of Obviousness',
    'Why everything feels obvious in hindsight.',
  )

const fixtures: readonly { name: string; bytes: () => Uint8Array; format: ImportFormat; entries: ParsedEntry[] }[] = [
  {
    name: 'Pocket CSV (pocket.csv)',
    bytes: () => readFixture('pocket.csv'),
    format: 'pocket',
    entries: [
      ok({
        line: 2,
        url: 'http://youmightnotneedjquery.com/',
        title: 'You Might Not Need jQuery',
        savedAt: '2020-09-17T06:06:28.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 3,
        url: 'https://www.monde-diplomatique.fr/2020/09/HALIMI/62165',
        title: 'Avec les accusés d’El Halia, par Gisèle Halimi (Le Monde diplomatique, sept',
        savedAt: '2020-09-11T06:39:07.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 4,
        url: 'https://www.reddit.com/r/DataHoarder/comments/ioupbk/archivebox_question_how_do_i_import_links_from_a/',
        title: 'ArchiveBox question: How do I import links from a RSS feed?',
        savedAt: '2020-09-24T15:31:36.000Z',
        isRead: true,
        folder: null,
        tags: ['tools'],
        droppedTags: ['self-hosting'],
      }),
      ok({
        line: 5,
        url: 'https://devblogs.microsoft.com/typescript/announcing-typescript-5-0/',
        title: 'Announcing TypeScript 5.0 – "decorators" and more',
        savedAt: '2023-03-22T15:46:40.000Z',
        isRead: false,
        folder: null,
        tags: ['typescript', 'front-end'],
        droppedTags: ['javascript'],
      }),
      ok({
        line: 6,
        url: 'https://example.com/untitled',
        title: null,
        savedAt: '2023-11-14T22:13:20.000Z',
        isRead: true,
        ...none,
      }),
    ],
  },
  {
    name: 'Pocket zip with two parts (part_000000.csv, part_000001.csv)',
    bytes: pocketZip,
    format: 'pocket',
    entries: [
      ok({
        line: 2,
        url: 'https://github.com/hoarder-app',
        title: 'Hoarder App',
        savedAt: '2024-10-10T16:12:32.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 3,
        url: 'https://github.com/hoarder-app/hoarder',
        title:
          'hoarder-app/hoarder: A self-hostable bookmark-everything app (links, notes and images) with AI-based automatic tagging and full text search',
        savedAt: '2024-10-10T16:12:32.000Z',
        isRead: false,
        folder: null,
        tags: ['ai'],
        droppedTags: ['opensource', 'withÄumlaut', 'with space'],
      }),
      ok({
        line: 4,
        url: 'https://somewebsite.com/with,commas,in,the,url',
        title: 'Some Website Title',
        savedAt: '2024-10-10T16:12:32.000Z',
        isRead: true,
        ...none,
      }),
      // The second part's header is line 5: lines count on across parts, and the message names the part.
      failed(
        6,
        'part_000001.csv line 2: the URL "javascript:alert(document.title)" cannot be saved: scheme "javascript:" is not http or https',
      ),
      ok({
        line: 7,
        url: 'https://www.schneier.com/blog/archives/2008/03/the_security_mi_1.html',
        title: 'The Security Mindset',
        savedAt: '2008-03-08T18:13:20.000Z',
        isRead: true,
        folder: null,
        tags: ['security', 'design'],
        droppedTags: [],
      }),
    ],
  },
  {
    name: 'Pocket old HTML export (pocket-export.html)',
    bytes: () => readFixture('pocket-export.html'),
    format: 'pocket',
    entries: [
      ok({
        line: 11,
        url: 'https://www.20minutes.fr/sport/4002755-20220928-tarn-lapins-ravagent-terrain-match-rugby-doit-etre-annule',
        title: 'Tarn : Des lapins ravagent le terrain, le match de rugby doit être annulé',
        savedAt: '2023-07-06T07:31:35.000Z',
        isRead: false,
        folder: null,
        tags: [],
        droppedTags: ['ifttt', 'new_entry_simple'],
      }),
      ok({
        line: 12,
        url: 'https://overreacted.io/a-complete-guide-to-useeffect/',
        title: 'A Complete Guide to useEffect — Overreacted',
        savedAt: '2023-07-06T07:10:12.000Z',
        isRead: false,
        folder: null,
        tags: ['front-end'],
        droppedTags: ['React'],
      }),
      ok({
        line: 18,
        url: 'https://simonwillison.net/2023/Apr/2/prompt-injection/',
        title: 'Prompt injection: what’s the worst that can happen?',
        savedAt: '2023-04-02T01:46:40.000Z',
        isRead: true,
        folder: null,
        tags: ['ai', 'security'],
        droppedTags: [],
      }),
      ok({
        line: 19,
        url: 'https://example.com/no-date',
        title: 'No date here',
        savedAt: null,
        isRead: true,
        ...none,
      }),
    ],
  },
  {
    name: 'Chrome bookmarks (CRLF, Bookmarks bar, a bookmarklet, a date in the future)',
    bytes: () => readFixture('chrome-bookmarks.html'),
    format: 'netscape',
    entries: [
      ok({
        line: 11,
        url: 'https://news.ycombinator.com/',
        title: 'Hacker News',
        savedAt: '2021-01-14T01:48:20.000Z',
        isRead: false,
        folder: 'Bookmarks bar',
        tags: [],
        droppedTags: [],
      }),
      ok({
        line: 14,
        url: 'https://developer.mozilla.org/en-US/docs/Web/JavaScript',
        title: 'JavaScript | MDN',
        savedAt: '2022-03-03T19:37:57.000Z',
        isRead: false,
        folder: 'Bookmarks bar / Dev & Docs',
        tags: [],
        droppedTags: [],
      }),
      failed(
        15,
        `the URL "javascript:(function(){location.href='https://web.archive.org/save/'+location.href})()" cannot be saved: scheme "javascript:" is not http or https`,
      ),
      ok({
        line: 18,
        url: 'https://www.typescriptlang.org/docs/handbook/2/generics.html',
        title: 'TypeScript: Documentation - Generics',
        savedAt: '2023-11-14T22:13:20.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 19,
        url: 'https://example.com/future',
        title: 'Saved by a clock that ran ahead',
        savedAt: '2025-06-01T00:00:00.000Z',
        isRead: false,
        ...none,
      }),
    ],
  },
  {
    name: 'Firefox bookmarks (TAGS, place: queries, toolbar and unfiled roots)',
    bytes: () => readFixture('firefox-bookmarks.html'),
    format: 'netscape',
    entries: [
      failed(
        12,
        'the URL "place:parent=toolbar_____&sort=12&maxResults=10" cannot be saved: scheme "place:" is not http or https',
      ),
      ok({
        line: 15,
        url: 'https://support.mozilla.org/en-US/products/firefox',
        title: 'Get Help',
        savedAt: '2020-07-06T22:04:40.000Z',
        isRead: false,
        folder: 'Mozilla Firefox',
        tags: [],
        droppedTags: [],
      }),
      ok({
        line: 19,
        url: 'https://www.typescriptlang.org/play',
        title: 'TS Playground',
        savedAt: '2023-11-14T22:14:10.000Z',
        isRead: false,
        folder: 'Bookmarks Toolbar',
        tags: ['typescript', 'front-end'],
        droppedTags: ['playground'],
      }),
      ok({
        line: 20,
        url: 'https://owasp.org/www-project-top-ten/',
        title: 'OWASP Top Ten',
        savedAt: '2023-11-14T22:14:30.000Z',
        isRead: false,
        folder: 'Bookmarks Toolbar',
        tags: ['security'],
        droppedTags: [],
      }),
      ok({
        line: 24,
        url: 'https://example.org/ancient',
        title: 'Bookmarked in 2000',
        savedAt: '2000-01-01T00:00:00.000Z',
        isRead: false,
        folder: 'Other Bookmarks',
        tags: [],
        droppedTags: [],
      }),
      ok({
        line: 25,
        url: 'https://example.org/dateless',
        title: 'No date at all',
        savedAt: null,
        isRead: false,
        folder: 'Other Bookmarks',
        tags: [],
        droppedTags: [],
      }),
    ],
  },
  {
    name: 'Safari bookmarks (no outer list, no dates, the Reading List)',
    bytes: () => readFixture('safari-bookmarks.html'),
    format: 'netscape',
    entries: [
      ok({
        line: 8,
        url: 'https://www.apple.com/',
        title: 'Apple',
        savedAt: null,
        isRead: false,
        folder: 'Favorites',
        tags: [],
        droppedTags: [],
      }),
      ok({
        line: 11,
        url: 'https://docs.example.org/guide?a=1&b=2',
        title: 'Guide — part 1',
        savedAt: null,
        isRead: false,
        folder: 'Favorites / Work',
        tags: [],
        droppedTags: [],
      }),
      ok({ line: 17, url: 'https://loose.example.com/', title: 'Loose', savedAt: null, isRead: false, ...none }),
      ok({
        line: 20,
        url: 'https://webkit.org/blog/',
        title: 'WebKit Blog',
        savedAt: null,
        isRead: false,
        folder: 'Reading List',
        tags: [],
        droppedTags: [],
      }),
    ],
  },
  {
    name: 'Raindrop bookmarks (collections as folders, tags with spaces)',
    bytes: () => readFixture('raindrop-bookmarks.html'),
    format: 'netscape',
    entries: [
      ok({
        line: 14,
        url: 'https://www.readthistwice.com/person/paul-graham',
        title: '89 books Paul Graham recommended',
        savedAt: '2020-08-05T23:13:30.000Z',
        isRead: false,
        folder: 'Unsorted',
        tags: [],
        droppedTags: ['Read Later', 'books', 'fun', 'interesting'],
      }),
      ok({
        line: 21,
        url: 'https://practicaltypography.com/',
        title: 'Butterick’s Practical Typography',
        savedAt: '2020-09-28T18:06:40.000Z',
        isRead: false,
        folder: 'Design / Type & Fonts',
        tags: ['design'],
        droppedTags: ['typography'],
      }),
    ],
  },
  {
    name: 'Pinboard bookmarks (TOREAD, space-separated TAGS)',
    bytes: () => readFixture('pinboard-bookmarks.html'),
    format: 'netscape',
    entries: [
      ok({
        line: 5,
        url: 'http://c-faq.com/decl/spiral.anderson.html',
        title: 'Clockwise/Spiral Rule',
        savedAt: '2022-05-21T06:26:01.000Z',
        isRead: true,
        folder: null,
        tags: [],
        droppedTags: ['c', 'c++'],
      }),
      ok({
        line: 7,
        url: 'https://docs.microsoft.com/en-us/sysinternals/downloads/procmon',
        title: 'Process Monitor - Windows Sysinternals | Microsoft Docs',
        savedAt: '2020-11-24T02:24:59.000Z',
        isRead: true,
        folder: null,
        tags: ['tools'],
        droppedTags: ['windows-dev'],
      }),
      ok({
        line: 10,
        url: 'https://www.intel.com/content/www/us/en/developer/tools/oneapi/vtune-profiler.html',
        title: 'Fix Performance Bottlenecks with Intel® VTune™ Profiler',
        savedAt: '2022-04-13T13:12:10.000Z',
        isRead: false,
        folder: null,
        tags: ['tools'],
        droppedTags: ['performance', 'profiling', 'toread'],
      }),
      // The file says TOREAD elsewhere, so an anchor without it is not "to read".
      ok({
        line: 12,
        url: 'https://simonwillison.net/',
        title: 'No TOREAD on this one',
        savedAt: '2022-04-13T13:13:20.000Z',
        isRead: true,
        ...none,
      }),
    ],
  },
  {
    name: 'Instapaper CSV (URL,Title,Selection,Folder,Timestamp)',
    bytes: () => readFixture('instapaper.csv'),
    format: 'instapaper',
    entries: [
      ok({
        line: 2,
        url: 'https://www.liberation.fr/societe/police-justice/cours-dassises-20210414_FYUNIZENHRGHZLAZEKSMKZYEPI/',
        title: "Cours d'assises : «On efface le peuple d'un processus judiciaire dont il est pourtant le cœur battant»",
        savedAt: '2021-04-14T11:33:20.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 3,
        url: 'https://redditblog.com/2016/09/20/amp-and-reactredux/',
        title: 'AMP and React+Redux: Why Not?',
        savedAt: '2016-09-20T19:33:20.000Z',
        isRead: true,
        ...none,
      }),
      ok({
        line: 4,
        url: 'https://medium.com/@the_minh/why-foursquare-swarm-is-still-my-favourite-social-network-e38228493e6c',
        title: 'Why Foursquare / Swarm is still my favourite social network',
        savedAt: '2017-03-20T08:53:20.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 5,
        url: 'https://www.20minutes.fr/high-tech/2077615-20170531-quoi-exactement-tweet-covfefe-donald-trump-persiste-signe',
        title: "Dis donc Donald Trump, c'est quoi exactement «covfefe»?",
        savedAt: '2017-05-31T03:06:40.000Z',
        isRead: false,
        folder: 'Politics',
        tags: [],
        droppedTags: [],
      }),
    ],
  },
  {
    name: 'Instapaper CSV with Tags',
    bytes: () => readFixture('instapaper-tags.csv'),
    format: 'instapaper',
    entries: [
      ok({
        line: 2,
        url: 'https://www.liberation.fr/societe/police-justice/cours-dassises-20210414_FYUNIZENHRGHZLAZEKSMKZYEPI/',
        title: "Cours d'assises : «On efface le peuple d'un processus judiciaire dont il est pourtant le cœur battant»",
        savedAt: '2023-11-14T22:13:20.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 3,
        url: 'https://redditblog.com/2016/09/20/amp-and-reactredux/',
        title: 'AMP and React+Redux: Why Not?',
        savedAt: '2023-11-14T22:13:21.000Z',
        isRead: true,
        folder: null,
        tags: ['front-end'],
        droppedTags: ['react', 'javascript'],
      }),
      ok({
        line: 4,
        url: 'https://medium.com/@the_minh/why-foursquare-swarm-is-still-my-favourite-social-network-e38228493e6c',
        title: 'Why Foursquare / Swarm is still my favourite social network',
        savedAt: '2023-11-14T22:13:22.000Z',
        isRead: false,
        folder: null,
        tags: [],
        droppedTags: ['social'],
      }),
      ok({
        line: 5,
        url: 'https://www.20minutes.fr/high-tech/2077615-20170531-quoi-exactement-tweet-covfefe-donald-trump-persiste-signe',
        title: "Dis donc Donald Trump, c'est quoi exactement «covfefe»?",
        savedAt: '2023-11-14T22:13:23.000Z',
        isRead: false,
        ...none,
      }),
    ],
  },
  {
    name: 'Omnivore zip (metadata files in name order; each item with its highlights, its content as a page)',
    bytes: () => omnivoreZip(),
    format: 'omnivore',
    entries: [
      ok({
        line: 1,
        url: 'https://example.substack.com/p/the-tyranny-of-obviousness',
        title: 'The Tyranny of Obviousness',
        savedAt: '2024-01-20T09:41:59.000Z',
        isRead: true,
        folder: null,
        tags: ['design'],
        droppedTags: ['Newsletter'],
        highlights: TYRANNY_HIGHLIGHTS,
        page: TYRANNY_PAGE(),
      }),
      ok({
        line: 2,
        url: 'https://www.understandingai.org/p/large-language-models-explained-with',
        title: 'Large language models, explained with a minimum of math and jargon',
        savedAt: '2023-07-27T14:00:00.000Z',
        isRead: false,
        folder: null,
        tags: ['ai'],
        droppedTags: ['machine learning'],
        // No content/ file for it: its highlights come without a page (their position waits for its article).
        highlights: LLM_HIGHLIGHTS,
      }),
      failed(3, 'metadata_2_to_3.json entry 1: savedAt "not a date" cannot be read as a date'),
    ],
  },
  {
    name: 'one Omnivore metadata_*.json on its own (the zip unpacked)',
    bytes: () => readFixture('omnivore/metadata_0_to_2.json'),
    format: 'omnivore',
    entries: [
      ok({
        line: 1,
        url: 'https://example.substack.com/p/the-tyranny-of-obviousness',
        title: 'The Tyranny of Obviousness',
        savedAt: '2024-01-20T09:41:59.000Z',
        isRead: true,
        folder: null,
        tags: ['design'],
        droppedTags: ['Newsletter'],
      }),
      ok({
        line: 2,
        url: 'https://www.understandingai.org/p/large-language-models-explained-with',
        title: 'Large language models, explained with a minimum of math and jargon',
        savedAt: '2023-07-27T14:00:00.000Z',
        isRead: false,
        folder: null,
        tags: ['ai'],
        droppedTags: ['machine learning'],
      }),
    ],
  },
  {
    name: 'wallabag JSON',
    bytes: () => readFixture('wallabag.json'),
    format: 'wallabag',
    entries: [
      ok({
        line: 1,
        url: 'https://blog.wikimedia.org/2016/02/10/anne-frank-diary-removal/',
        title:
          'Wikimedia Foundation removes The Diary of Anne Frank due to copyright law requirements « Wikimedia blog',
        savedAt: '2016-09-08T09:55:58.000Z',
        isRead: true,
        folder: null,
        tags: ['security'],
        droppedTags: ['wikimedia'],
      }),
      ok({
        line: 2,
        url: 'https://tails.boum.org/news/version_2.0.1/index.en.html',
        title: 'Tails - Tails 2.0.1 is out',
        savedAt: '2024-01-02T02:04:05.000Z',
        isRead: false,
        ...none,
      }),
      failed(3, 'created_at "1985-05-05T10:00:00+00:00" (1985-05-05T10:00:00.000Z) is before 1990'),
    ],
  },
  {
    name: 'Readlater JSON export',
    bytes: () => readFixture('readlater.json'),
    format: 'readlater',
    entries: [
      ok({
        line: 1,
        url: 'https://www.typescriptlang.org/docs/handbook/2/narrowing.html',
        title: 'TypeScript: Documentation - Narrowing',
        savedAt: '2025-03-01T09:30:00.000Z',
        lastSavedAt: '2025-05-20T10:00:00.000Z',
        isRead: true,
        folder: 'Reading queue',
        tags: ['typescript', 'front-end'],
        droppedTags: [],
      }),
      ok({
        line: 2,
        url: 'https://github.com/oven-sh/bun',
        title: null,
        savedAt: '2025-05-29T23:59:59.000Z',
        lastSavedAt: '2025-05-29T23:59:59.000Z',
        isRead: false,
        ...none,
      }),
    ],
  },
  {
    name: 'Readlater CSV export (CRLF, a quoted multi-line title)',
    bytes: () => readFixture('readlater.csv'),
    format: 'readlater',
    entries: [
      ok({
        line: 2,
        url: 'https://www.typescriptlang.org/docs/handbook/2/narrowing.html',
        title: 'TypeScript: Documentation - Narrowing',
        savedAt: '2025-03-01T09:30:00.000Z',
        lastSavedAt: '2025-05-20T10:00:00.000Z',
        isRead: true,
        folder: 'Reading queue',
        tags: ['typescript', 'front-end'],
        droppedTags: [],
      }),
      ok({
        line: 3,
        url: 'https://github.com/oven-sh/bun',
        title: null,
        savedAt: '2025-05-29T23:59:59.000Z',
        lastSavedAt: '2025-05-29T23:59:59.000Z',
        isRead: false,
        ...none,
      }),
      ok({
        line: 4,
        url: 'https://example.com/quoted',
        title: 'A "quoted", multi-line title',
        savedAt: '2025-04-01T00:00:00.000Z',
        lastSavedAt: '2025-06-01T00:00:00.000Z',
        isRead: false,
        folder: 'Later / Maybe',
        tags: ['ai', 'tools'],
        droppedTags: [],
      }),
    ],
  },
  {
    name: 'URL list',
    bytes: () => readFixture('urls.txt'),
    format: 'urls',
    entries: [
      ok({ line: 2, url: 'https://example.com/first', title: null, savedAt: null, isRead: false, ...none }),
      ok({
        line: 4,
        url: 'https://example.com/second?ref=list',
        title: null,
        savedAt: null,
        isRead: false,
        ...none,
      }),
      failed(5, 'the URL "not a url" cannot be saved: it is not an absolute URL'),
      failed(6, 'the URL "/relative/path" cannot be saved: it is not an absolute URL'),
      ok({ line: 8, url: 'https://example.com/third#section', title: null, savedAt: null, isRead: false, ...none }),
    ],
  },
]

describe('parseImportFile() detects each export and reads every entry', () => {
  for (const fixture of fixtures) {
    test(fixture.name, () => {
      assert.deepEqual(parseImportFile(fixture.bytes(), { now: NOW }), {
        format: fixture.format,
        entries: fixture.entries,
      })
    })
  }
})

describe('parseImportFile() reads each export the same when its format is named', () => {
  for (const fixture of fixtures) {
    test(`${fixture.name}, format=${fixture.format}`, () => {
      const parsed = parseImportFile(fixture.bytes(), {
        format: fixture.format,
        contentType: 'application/octet-stream',
        now: NOW,
      })
      assert.deepEqual(parsed, { format: fixture.format, entries: fixture.entries })
    })
  }
})

/** A fixture as another format than its own: refused, saying what the file is. */
const mismatched: readonly [name: string, bytes: () => Uint8Array, format: ImportFormat, message: string][] = [
  [
    'a bookmark file as pocket',
    () => readFixture('firefox-bookmarks.html'),
    'pocket',
    'format=pocket was asked for but the file is a browser bookmark file (format=netscape)',
  ],
  [
    "Pocket's HTML as netscape",
    () => readFixture('pocket-export.html'),
    'netscape',
    "format=netscape was asked for but the file is Pocket's HTML export (format=pocket)",
  ],
  [
    "Pocket's CSV as instapaper",
    () => readFixture('pocket.csv'),
    'instapaper',
    "format=instapaper was asked for but the file is Pocket's CSV export (format=pocket)",
  ],
  [
    "Pocket's zip as omnivore",
    pocketZip,
    'omnivore',
    "format=omnivore was asked for but the file is Pocket's zipped CSV export (format=pocket)",
  ],
  [
    "Omnivore's zip as pocket",
    () => omnivoreZip(),
    'pocket',
    "format=pocket was asked for but the file is Omnivore's export zip (format=omnivore)",
  ],
  [
    'our JSON as wallabag',
    () => readFixture('readlater.json'),
    'wallabag',
    'format=wallabag was asked for but the file is a Readlater JSON export (format=readlater)',
  ],
  [
    "wallabag's JSON as readlater",
    () => readFixture('wallabag.json'),
    'readlater',
    "format=readlater was asked for but the file is wallabag's JSON export (format=wallabag)",
  ],
  [
    "wallabag's JSON as urls",
    () => readFixture('wallabag.json'),
    'urls',
    "format=urls was asked for but the file is wallabag's JSON export (format=wallabag)",
  ],
  [
    'Instapaper as readlater',
    () => readFixture('instapaper.csv'),
    'readlater',
    "format=readlater was asked for but the file is Instapaper's CSV export (format=instapaper)",
  ],
  [
    'a URL list as pocket',
    () => readFixture('urls.txt'),
    'pocket',
    'format=pocket was asked for but the file is a list of URLs (format=urls)',
  ],
  [
    'our CSV as pocket',
    () => readFixture('readlater.csv'),
    'pocket',
    'format=pocket was asked for but the file is a Readlater CSV export (format=readlater)',
  ],
  [
    'prose as readlater',
    () => encoder.encode('Dear diary,\ntoday I saved nothing.\n'),
    'readlater',
    'format=readlater was asked for but the file is a CSV file whose header "dear diary," is no known export\'s',
  ],
  [
    'a PDF as pocket',
    () => encoder.encode('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n'),
    'pocket',
    'format=pocket was asked for but the file is a PDF document',
  ],
]

describe('parseImportFile() refuses a file that is not the format asked for', () => {
  for (const [name, bytes, format, message] of mismatched) {
    test(name, () => {
      assert.throws(() => parseImportFile(bytes(), { format, now: NOW }), { name: 'Error', message })
      assert.throws(() => parseImportFile(bytes(), { format, now: NOW }), ImportFormatError)
    })
  }
})

const pdf = encoder.encode('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n')
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

/** Files refused whole (ImportFormatError), with the message that says why. */
const refused: readonly [name: string, bytes: () => Uint8Array, message: string | RegExp, contentType?: string][] = [
  ['an empty file', () => new Uint8Array(0), 'the file is empty'],
  ['only whitespace', () => encoder.encode(' \n\t\r\n '), 'the file is empty'],
  ['only a byte-order mark', () => new Uint8Array([0xef, 0xbb, 0xbf]), 'the file is empty'],
  [
    'a PDF (the content type is named)',
    () => pdf,
    /^not a supported format: the file is a PDF document \(sent as application\/pdf\); Pocket \(CSV, zip or HTML\)/,
    'application/pdf',
  ],
  ['an image', () => png, /^not a supported format: the file is binary data; /],
  ['a gzip', () => new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]), /gzip-compressed data \(unpack it first\)/],
  [
    'prose',
    () => encoder.encode('Things to read\nthe article about tides\nhttps://example.com/tides\nthat one podcast\n'),
    /^not a supported format: the file is text that is not a list of URLs \(fewer than half its lines are http\(s\) URLs\)/,
  ],
  [
    'a CSV from another tool',
    () => encoder.encode('id,title,note,excerpt,link,folder\n1,A,,,https://a.example/,Inbox\n'),
    /^not a supported format: the file is a CSV file whose header "id,title,note,excerpt,link,folder" is no known export's/,
  ],
  [
    'some other JSON',
    () => encoder.encode('{"bookmarks":[{"href":"https://a.example/"}]}'),
    /^not a supported format: the file is JSON that is neither a Readlater nor a wallabag export/,
  ],
  ['an empty JSON array', () => encoder.encode('[]'), /^not a supported format: the file is an empty JSON array/],
  ['malformed JSON', () => encoder.encode('{"format":"readlater","savedItems":[{]}'), /^the JSON is malformed: /],
  [
    'an ordinary web page',
    () => encoder.encode('<!doctype html><html><head><title>Hi</title></head><body><a href="/">home</a></body></html>'),
    /^not a supported format: the file is an HTML page that is neither a bookmark file nor a Pocket export/,
  ],
  [
    'a zip of something else',
    () => craftZipOf('photo.jpg', 'notes.txt'),
    /^not a supported format: the file is a zip holding photo\.jpg, notes\.txt \(neither Pocket's CSV parts nor Omnivore's metadata_\*\.json\)/,
  ],
  [
    'a Readlater export of another version',
    () => encoder.encode('{"format":"readlater","version":2,"exportedAt":"2030-01-01T00:00:00Z","savedItems":[]}'),
    'the file is a Readlater export of version 2; this server reads version 1',
  ],
  [
    'a Readlater export without savedItems',
    () => encoder.encode('{"format":"readlater","version":1}'),
    'the file is not a Readlater export: it has no "savedItems" array',
  ],
  ['a file over 50 MiB', () => new Uint8Array(IMPORT_MAX_BYTES + 1), 'the file is larger than 50 MiB'],
  [
    'JSON nested deeper than 32 levels (1 MB of `[`), refused before it is parsed',
    () => encoder.encode('['.repeat(1_000_000)),
    'the JSON nests deeper than 32 levels; no export does',
  ],
  [
    'a Readlater export with one item nested 33 deep',
    () =>
      encoder.encode(
        `{"format":"readlater","version":1,"savedItems":[{"originalUrl":"https://a.example/","tags":${'['.repeat(30)}${']'.repeat(30)}}]}`,
      ),
    'the JSON nests deeper than 32 levels; no export does',
  ],
  [
    'an Omnivore zip whose metadata nests deeper than 32 levels',
    () => zipStored([['metadata_0_to_1.json', `[{"slug":"a","savedAt":1,"x":${'['.repeat(40)}${']'.repeat(40)}}]`]]),
    'the JSON of metadata_0_to_1.json nests deeper than 32 levels; no export does',
  ],
  [
    "a zip of CSV files that are not Pocket's",
    () => craftZipOf('part_000000.csv'),
    `part_000000.csv is not Pocket's CSV: its header is "id,link"`,
  ],
]

/** A stored (uncompressed) zip of small text files, the CSV ones with a header Pocket does not write. */
function craftZipOf(...names: string[]): Uint8Array {
  return zipStored(names.map((name) => [name, name.endsWith('.csv') ? 'id,link\n1,https://a.example/\n' : 'x']))
}

describe('parseImportFile() refuses a file it cannot read at all', () => {
  for (const [name, bytes, message, contentType] of refused) {
    test(name, () => {
      assert.throws(
        () => parseImportFile(bytes(), { now: NOW, contentType }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFormatError, String(error))
          if (typeof message === 'string') assert.equal(error.message, message)
          else assert.match(error.message, message)
          return true
        },
      )
    })
  }

  test('a format that is not one', () => {
    assert.throws(() => parseImportFile(readFixture('urls.txt'), { format: 'delicious' as ImportFormat, now: NOW }), {
      message: `format=delicious is not a format; expected one of ${IMPORT_FORMATS.join(', ')}`,
    })
  })
})

describe('parseImportFile() decodes text', () => {
  const text = 'title,url,time_added,tags,status\nCafé,https://café.example/,1600000000,,unread\n'
  /** `text` in UTF-16, little or big endian, behind its byte-order mark or without one. */
  const utf16 = (bigEndian: boolean, bom: boolean): Uint8Array => {
    const start = bom ? 2 : 0
    const bytes = new Uint8Array(start + text.length * 2)
    if (bom) bytes.set(bigEndian ? [0xfe, 0xff] : [0xff, 0xfe])
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i)
      bytes[start + i * 2 + (bigEndian ? 1 : 0)] = unit & 0xff
      bytes[start + i * 2 + (bigEndian ? 0 : 1)] = unit >> 8
    }
    return bytes
  }
  const cafe = ok({
    line: 2,
    url: 'https://café.example/',
    title: 'Café',
    savedAt: '2020-09-13T12:26:40.000Z',
    isRead: false,
    ...none,
  })

  test('UTF-16 with a byte-order mark (little and big endian)', () => {
    for (const bigEndian of [false, true]) {
      const parsed = parseImportFile(utf16(bigEndian, true), { now: NOW })
      assert.equal(parsed.format, 'pocket')
      assert.deepEqual(parsed.entries[0], cafe)
    }
  })

  test('UTF-16 without a byte-order mark, when the Content-Type names a UTF-16 charset', () => {
    for (const [contentType, bigEndian] of [
      ['text/csv; charset=utf-16le', false],
      ['text/plain; charset="UTF-16LE"', false],
      ['text/csv; charset=utf-16', false],
      ['text/csv; charset=utf-16be', true],
    ] as const) {
      const parsed = parseImportFile(utf16(bigEndian, false), { now: NOW, contentType })
      assert.equal(parsed.format, 'pocket', contentType)
      assert.deepEqual(parsed.entries[0], cafe, contentType)
    }
    // Without the charset the NULs still make it binary data: nothing says it is text.
    for (const contentType of [undefined, 'text/csv', 'text/csv; charset=utf-8']) {
      assert.throws(() => parseImportFile(utf16(false, false), { now: NOW, contentType }), {
        message: /the file is binary data/,
      })
    }
  })

  test('a UTF-8 byte-order mark is not part of the first column', () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode('URL,Title,Selection,Folder\nhttps://a.example/,A,,Unread\n'),
    ])
    assert.equal(parseImportFile(bytes, { now: NOW }).format, 'instapaper')
  })

  const latin1 = new Uint8Array([
    ...encoder.encode('<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://a.example/">Caf'),
    0xe9,
    ...encoder.encode('</A>\n</DL><p>\n'),
  ])
  test('bytes that are not UTF-8 are read as Windows-1252', () => {
    const [entry] = parseImportFile(latin1, { now: NOW }).entries
    assert.ok(entry?.ok)
    assert.equal(entry.entry.title, 'Café')
  })

  test("the Content-Type's charset is used when there is no byte-order mark", () => {
    // C3 A9 is "é" in UTF-8 but "Ã©" in ISO-8859-1: the declared charset wins over the guess.
    const bytes = encoder.encode(
      '<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="https://a.example/">Café</A>\n',
    )
    const title = (contentType?: string) => {
      const [entry] = parseImportFile(bytes, { now: NOW, contentType }).entries
      return entry?.ok ? entry.entry.title : null
    }
    assert.equal(title(), 'Café')
    assert.equal(title('text/html; charset=utf-8'), 'Café')
    assert.equal(title('text/html; charset="ISO-8859-1"'), 'CafÃ©')
    assert.equal(title('text/html; charset=no-such-charset'), 'Café')
  })
})

describe('parseImportFile() with format=urls', () => {
  test('reads text that is mostly not URLs, each stray line an entry error', () => {
    const parsed = parseImportFile(encoder.encode('read later:\nhttps://a.example/\nthe tides article\n'), {
      format: 'urls',
      now: NOW,
    })
    assert.deepEqual(parsed, {
      format: 'urls',
      entries: [
        failed(1, 'the URL "read later:" cannot be saved: it is not an absolute URL'),
        ok({ line: 2, url: 'https://a.example/', title: null, savedAt: null, isRead: false, ...none }),
        failed(3, 'the URL "the tides article" cannot be saved: it is not an absolute URL'),
      ],
    })
  })
})

/** A zip of stored (uncompressed) entries, written by fflate with true sizes and checksums. */
function zipStored(files: readonly [name: string, text: string][]): Uint8Array {
  const entries = Object.fromEntries(files.map(([name, text]) => [name, encoder.encode(text)]))
  return zipSync(entries, { level: 0, mtime: new Date('2025-05-01T12:00:00Z') })
}
