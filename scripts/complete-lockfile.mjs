// The npm registry mirror on our build machines lacks deno's non-linux-x64 platform packages, so
// `npm install` leaves them out of package-lock.json and `npm ci` then refuses the lockfile
// ("Missing: @deno/darwin-arm64@ from lock file"). This restores their entries; npm skips them at
// install time on other platforms, so no download is attempted. Run after any `npm install`.
import { readFileSync, writeFileSync } from 'node:fs'

const path = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(path, 'utf8'))
const packages = lock.packages
const deno = packages['node_modules/deno']
if (!deno) process.exit(0)
const manifest = JSON.parse(readFileSync(new URL('../node_modules/deno/package.json', import.meta.url), 'utf8'))
const platforms = {
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'linux-arm64-glibc': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-x64-glibc': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64': { os: ['win32'], cpu: ['x64'] },
}
let added = 0
for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`
  const platform = platforms[name.replace('@deno/', '')]
  if (packages[key] || !platform) continue
  packages[key] = {
    version: deno.version,
    cpu: platform.cpu,
    dev: true,
    ...(platform.libc ? { libc: platform.libc } : {}),
    license: 'MIT',
    optional: true,
    os: platform.os,
  }
  added++
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
)
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n')
console.log(added ? `package-lock.json: restored ${added} deno platform entries` : 'package-lock.json: complete')
