// `npm run build` (and `npm pack`, through prepack): the package as JavaScript with type declarations in
// dist/, the same tree as the source, plus the files the code reads at run time beside itself (the SQL
// migrations, the web app's assets). docs/embedding.md#the-package.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
// dist/extension is the browser extension's build (npm run build:extension), never packed
// (package.json "files"): it stays.
if (existsSync(`${root}dist`))
  for (const name of readdirSync(`${root}dist`))
    if (name !== 'extension') rmSync(`${root}dist/${name}`, { recursive: true, force: true })
execFileSync(`${root}node_modules/.bin/tsc`, ['-p', `${root}tsconfig.build.json`], { stdio: 'inherit' })
for (const dir of ['adapters/storage/migrations', 'adapters/http/web/assets'])
  cpSync(`${root}${dir}`, `${root}dist/${dir}`, { recursive: true })
