import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { type Browser } from 'playwright-core'
import { chromiumAvailable, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * /api/docs/ in a real browser, on a service that requires application keys and with every request to another
 * host refused: the reference must load from the service alone, show the operations and run one.
 * A screenshot goes to test/browser/screenshots/ (ignored by git).
 */
const available = chromiumAvailable
const skip = skipWithoutChromium
const SHOTS = path.join(import.meta.dirname, 'screenshots')

let api: TestApp
let apiUrl: string
let key: string
let browser: Browser | undefined

before(async () => {
  if (!available) return
  api = await createTestApp('tiny', { REQUIRE_APP_KEY: 'true' })
  key = (await appKeysRepository(api.database.db).create('docs page')).key
  apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await api?.close()
})

test('the reference loads offline with the key, lists the operations and runs one against the service', { skip }, async () => {
  const tab = await browser!.newPage()
  // Two suites and their browsers share the machine in CI: the page may render slowly (12 s of a quiet machine's
  // time to lay out the operations), never wrongly.
  tab.setDefaultTimeout(180_000)
  const elsewhere: string[] = []
  const problems: string[] = []
  // Anything not on the service's own origin fails, as it would on a machine without internet.
  await tab.route('**/*', (route) => {
    if (route.request().url().startsWith(apiUrl)) return route.continue()
    elsewhere.push(route.request().url())
    return route.abort()
  })
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(String(error)))
  const failed: string[] = []
  tab.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`)
  })

  // The address names the questions tag, which the page opens (it renders the others as they scroll into view).
  await tab.goto(`${apiUrl}/api/docs/?AppAuthorization=${key}#/questions`)
  await tab.waitForSelector('.opblock-summary')
  assert.match((await tab.textContent('.info .title'))!, /Civic Survey API/)
  assert.match((await tab.textContent('.info .title'))!, /OAS 3\.1/)
  // Run GET /api/questions/ from the page: the key goes with it, and the page shows the service's answer.
  const questions = tab.locator('.opblock-get', { has: tab.locator('.opblock-summary-path[data-path="/api/questions/"]') }).first()
  // Opening an operation changes the address's hash; nothing to wait for but the button it shows.
  await questions.locator('.opblock-summary').click({ noWaitAfter: true })
  await questions.locator('.try-out__btn').click({ noWaitAfter: true })
  await questions.locator('.execute').click({ noWaitAfter: true })
  const status = questions.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor()
  assert.equal((await status.textContent())?.trim(), '200')
  assert.match((await questions.locator('.live-responses-table .microlight').first().textContent())!, /"results"/)

  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: path.join(SHOTS, 'api-docs.png'), fullPage: false })
  assert.deepEqual(elsewhere, [], 'the page asked another host')
  assert.deepEqual(failed, [], 'a request of the page failed')
  assert.deepEqual(problems, [], 'errors in the page (a refused script or style shows here)')
})
