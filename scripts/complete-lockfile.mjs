// The npm registry mirror on our build machines lacks the other platforms' binary packages of deno and
// Biome, so `npm install` leaves them out of package-lock.json and `npm ci` then refuses the lockfile
// ("Missing: @deno/darwin-arm64@ from lock file"). This restores their entries; npm skips them at
// install time on other platforms, so no download is attempted. Run after any `npm install`.
import { readFileSync, writeFileSync } from 'node:fs'

const path = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(path, 'utf8'))
const packages = lock.packages

/** os, cpu and libc of a platform package, from the end of its name. */
function platformOf(suffix) {
  const [os, cpu, libc] = suffix.split('-')
  const libcs = { glibc: 'glibc', musl: 'musl' }
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libcs[libc]] } : os === 'linux' ? { libc: ['glibc'] } : {}) }
}

const PARENTS = [
  { name: 'deno', prefix: '@deno/', license: 'MIT' },
  { name: '@biomejs/biome', prefix: '@biomejs/cli-', license: 'MIT OR Apache-2.0' },
]

let added = 0
for (const parent of PARENTS) {
  const entry = packages[`node_modules/${parent.name}`]
  if (!entry) continue
  const manifest = JSON.parse(
    readFileSync(new URL(`../node_modules/${parent.name}/package.json`, import.meta.url), 'utf8'),
  )
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`
    if (packages[key] || !name.startsWith(parent.prefix)) continue
    const platform = platformOf(name.slice(parent.prefix.length))
    packages[key] = { version: entry.version, ...platform, dev: true, license: parent.license, optional: true }
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
)
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n')
console.log(added ? `package-lock.json: restored ${added} platform entries` : 'package-lock.json: complete')
