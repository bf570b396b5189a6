import { systemClock, webRandom } from './core/time.ts'
import { ConfigError, readConfig } from './adapters/config.ts'
import { runCli } from './adapters/cli/run-cli.ts'
import { createServer } from './adapters/http/app.ts'
import { createLogger } from './adapters/runtime/logger.ts'
import { openDatabase } from './adapters/storage/open-database.ts'
import { startMaintenance } from './adapters/storage/maintenance.ts'
import { serve } from './adapters/runtime/serve.ts'
import { loadSigningKeys } from './adapters/oauth/signing-keys.ts'
import { startEnrichment } from './adapters/enrichment/start.ts'

// Composition root: `bun server.ts` serves; `bun server.ts <command>` runs the admin CLI.

let config
try {
  config = readConfig(process.env)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`error: ${error.message}`)
  process.exit(2)
}

const args = process.argv.slice(2)
if (args.length > 0) {
  const cfg = config
  const code = await runCli(args, { openDb: () => openDatabase(cfg.databaseUrl, cfg.databaseAuthToken), clock: systemClock, random: webRandom }, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  })
  process.exit(code)
}

const log = createLogger(config.logLevel)
const db = await openDatabase(config.databaseUrl, config.databaseAuthToken)
// The token signing key is made on first start (and kept in the database for every later start and process).
await loadSigningKeys(db, systemClock)
const server = createServer({ db, config, clock: systemClock, random: webRandom, log })
const stopMaintenance = startMaintenance(db, systemClock, (error) => log('warn', { msg: 'maintenance failed', error: error instanceof Error ? error.name : 'unknown' }))
const enrichment = startEnrichment({ db, config, clock: systemClock, log })
// The transport limit sits above the API's own 64 KiB cap, so oversized bodies get the typed 413.
const http = serve(server.fetch, { port: config.port, hostname: config.host, maxBodyBytes: 1024 * 1024 })
log('info', { msg: 'listening', url: http.url, baseUrl: config.baseUrl, database: config.databaseUrl.startsWith('file:') ? config.databaseUrl : 'remote' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    stopMaintenance()
    // In-flight jobs get a moment to finish; one cut off is taken over when its lease runs out.
    await Promise.race([enrichment?.stop(), new Promise((resolve) => setTimeout(resolve, 2000))])
    await http.stop()
    db.$client.close()
    process.exit(0)
  })
}
