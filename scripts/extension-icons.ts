// `bun scripts/extension-icons.ts`: the extension's PNG icons (extension/icons/icon-{16,32,48,128}.png),
// drawn by Chromium from the web app's icon (adapters/http/web/assets/icon.svg), so both look the same.
// Run again after changing the SVG, and commit the PNGs. docs/extension.md#build
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { CHROMIUM } from '../test/helpers/browser.ts'

const root = join(import.meta.dir, '..')
const svg = readFileSync(join(root, 'adapters/http/web/assets/icon.svg'), 'utf8')
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
try {
  for (const size of [16, 32, 48, 128]) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 })
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}</style><img src="${src}" width="${size}" height="${size}">`,
    )
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode())
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } })
    writeFileSync(join(root, `extension/icons/icon-${size}.png`), png)
    await page.close()
  }
} finally {
  await browser.close()
}
