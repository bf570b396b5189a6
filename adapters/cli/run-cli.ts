import { SCOPES } from '../../core/types.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'
import { articlesRefresh } from './article-commands.ts'
import { backup, restore } from './database-commands.ts'
import { UsageError } from './flags.ts'
import { exportLibraryCommand, importFile } from './import-export-commands.ts'
import { keyCreate, keyList, keyRevoke, signingKeyRotate } from './key-commands.ts'
import { webhookDelete, webhookList } from './webhook-commands.ts'
import { userCreate, userDelete, userList, userPassword } from './user-commands.ts'

export type { CliDeps, CliIo }

const HELP = `Readlater admin commands (all honour DATABASE_URL / DATABASE_AUTH_TOKEN):

  bun server.ts                                             serve the API, OAuth, MCP and web app
  bun server.ts user create --email E --password P          create an account; prints its id
  bun server.ts user create --email E --password-stdin      the same, the password read from stdin
  bun server.ts user list                                   one line per person: id, email, created, items
  bun server.ts user password --email E                     set a new password read from stdin; ends their sessions
  bun server.ts user delete --email E --yes                 delete the person and everything of theirs
  bun server.ts key create --email E --scopes s1,s2 --label L
                                                            create a personal API key; prints it on the last line
  bun server.ts key list --email E                          the person's keys: id, label, scopes, created, last used, origin
  bun server.ts key revoke --id ID                          revoke a key and every key issued through it
  bun server.ts webhook list --email E                      the person's webhooks: id, URL, events, created, state, waiting, last
  bun server.ts webhook delete --email E --id ID            delete one of the person's webhooks and its waiting messages
  bun server.ts backup --to PATH                            consistent copy of the file database (safe while serving)
  bun server.ts restore --from PATH                         check a backup and put it in place (stop the server first)
  bun server.ts signing-key rotate                          a new token signing key; the old one verifies until its tokens expire
  bun server.ts articles refresh (--email E | --all)        extract the articles of enriched items again, after live work
  bun server.ts import --email E --file F [--format X]      import a Pocket, Instapaper, Omnivore, wallabag, bookmarks or
                                                            URL-list file (progress bar on a terminal, a summary at the end)
  bun server.ts export --email E --format json|netscape|csv the whole library to stdout (also markdown: the highlights, a zip;
    epub [--folder NAME|none] [--state unread|all]          epub: a book of a folder's articles, unread by default)
  bun server.ts help                                        this text

Scopes: ${SCOPES.join(', ')}
Exit status: 0 done, 1 refused (unknown account, failed check), 2 bad arguments or configuration.`

type Command = (args: string[], deps: CliDeps, io: CliIo) => Promise<number>

const COMMANDS: Record<string, Command> = {
  'user create': userCreate,
  'user list': userList,
  'user password': userPassword,
  'user delete': userDelete,
  'key create': keyCreate,
  'key list': keyList,
  'key revoke': keyRevoke,
  'signing-key rotate': signingKeyRotate,
  'webhook list': webhookList,
  'webhook delete': webhookDelete,
  'articles refresh': articlesRefresh,
}

const SINGLE_WORD: Record<string, Command> = { backup, restore, import: importFile, export: exportLibraryCommand }

/** Runs one admin command. Returns the exit code: 0 done, 1 refused, 2 bad arguments (docs/operations.md#admin-cli). */
export async function runCli(argv: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const [noun, verb, ...rest] = argv
  try {
    if (noun === 'help' || noun === '--help' || noun === '-h') {
      if (argv.length > 1) throw new UsageError('help takes no arguments')
      io.out(HELP)
      return 0
    }
    const single = noun ? SINGLE_WORD[noun] : undefined
    if (single) return await single(argv.slice(1), deps, io)
    const command = COMMANDS[`${noun} ${verb}`]
    if (command) return await command(rest, deps, io)
    throw new UsageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"; try: bun server.ts help`)
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}`)
      return 2
    }
    throw error
  }
}
