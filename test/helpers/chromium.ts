import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium, driven headless; CI installs it and sets REQUIRE_BROWSER so the tests cannot skip there. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const chromiumAvailable = existsSync(CHROMIUM)
export const skipWithoutChromium: string | false =
  chromiumAvailable || process.env.REQUIRE_BROWSER ? false : `no Chromium at ${CHROMIUM} (CI installs Debian's chromium)`

/** Without the background-networking flags Chromium keeps calling out, and this network refuses it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
