import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../e2e/processes.ts'

// The extension built into a temporary folder (scripts/build-extension.mjs --out-dir), as `npm run
// build:extension` builds it into dist/extension.

export interface ExtensionBuild {
  dir: string
  chromium: string
  firefox: string
  chromiumZip: string
  firefoxZip: string
  remove(): void
}

export async function buildExtension(): Promise<ExtensionBuild> {
  const dir = mkdtempSync(join(tmpdir(), 'readlater-extension-'))
  const proc = Bun.spawn(['node', join(ROOT, 'scripts/build-extension.mjs'), '--out-dir', dir], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = [
    await new Response(proc.stdout).text(),
    await new Response(proc.stderr).text(),
    await proc.exited,
  ]
  if (code !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`build-extension exited ${code}: ${out}${err}`)
  }
  const { version } = (await Bun.file(join(ROOT, 'package.json')).json()) as { version: string }
  return {
    dir,
    chromium: join(dir, 'chromium'),
    firefox: join(dir, 'firefox'),
    chromiumZip: join(dir, `readlater-chromium-${version}.zip`),
    firefoxZip: join(dir, `readlater-firefox-${version}.zip`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
