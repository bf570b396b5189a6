import { systemClock, webRandom } from './core/time.ts'
import { ConfigError, readConfig } from './adapters/config.ts'
import { runCli } from './adapters/cli/run-cli.ts'
import { readFile } from 'node:fs/promises'
import { createLogger } from './adapters/runtime/logger.ts'
import { DatabaseOpenError, openDatabase } from './adapters/storage/open-database.ts'
import { serve } from './adapters/runtime/serve.ts'
import { SigningKeyError } from './adapters/oauth/signing-keys.ts'
import { createFromConfig } from './index.ts'

// Composition root: `bun server.ts` serves; `bun server.ts <command>` runs the admin CLI.
// A configuration the service cannot run with stops it with one line on stderr and exit status 2
// (docs/operations.md#configuration).

/** Runs `start`; a configuration problem ends the process with its one-line reason. */
async function orExit<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start()
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof DatabaseOpenError || error instanceof SigningKeyError))
      throw error
    console.error(`error: ${error.message}`)
    process.exit(2)
  }
}

async function readStdin(): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for await (const chunk of process.stdin)
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
  return text + decoder.decode()
}

/**
 * A reader that closes the pipe early (`export … | head`) has what it wanted: the command ends there,
 * quietly and with status 0, never with a stack trace (docs/operations.md#admin-cli).
 */
function endIfPipeClosed(error: Error): void {
  if ((error as { code?: string }).code === 'EPIPE') process.exit(0)
}

const config = await orExit(async () => readConfig(process.env))

const args = process.argv.slice(2)
if (args.length > 0) {
  const code = await orExit(() =>
    runCli(
      args,
      {
        openDb: () => openDatabase(config.databaseUrl, config.databaseAuthToken),
        config,
        clock: systemClock,
        random: webRandom,
        readStdin,
        readFile: async (path) => new Uint8Array(await readFile(path)),
      },
      {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        write: (chunk) =>
          new Promise<void>((resolve, reject) =>
            process.stdout.write(chunk, (error) => {
              if (!error) return resolve()
              endIfPipeClosed(error)
              reject(error)
            }),
          ),
        progress: process.stderr.isTTY
          ? (line) => process.stderr.write(line === null ? '\r\x1b[2K' : `\r\x1b[2K${line}`)
          : undefined,
      },
    ),
  )
  process.exit(code)
}

const log = createLogger(config.logLevel)
const readlater = await orExit(() => createFromConfig(config, { log }))
const http = serve(readlater.handle, { port: config.port, hostname: config.host })
log('info', {
  msg: 'listening',
  url: http.url,
  baseUrl: config.baseUrl,
  database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'remote',
  engine: readlater.engine,
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await http.stop()
    await readlater.close()
    process.exit(0)
  })
}
