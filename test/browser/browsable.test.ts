import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { type Browser, type Page } from 'playwright-core'
import { chromiumAvailable, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * A person in Chromium, with script turned off, uses the browsable API as DRF's is used: from the root to the
 * questions, a page forward, the filter form, a question, sign in, answer it through the form, and the figures
 * move. Screenshots of each step go to test/browser/screenshots/ (ignored by git).
 */
const available = chromiumAvailable
const skip = skipWithoutChromium
const SHOTS = path.join(import.meta.dirname, 'screenshots')
const PASSWORD = 'lantern-orchard-42'

let api: TestApp
let apiUrl: string
let key: string
let browser: Browser | undefined

before(async () => {
  if (!available) return
  api = await createTestApp('tiny')
  key = (await appKeysRepository(api.database.db).create('browsable pages')).key
  const registered = await api.send('POST', '/auth/register/', {
    email: 'browser-reader@example.org',
    username: 'browser_reader',
    password: PASSWORD,
  })
  assert.equal(registered.statusCode, 201, registered.body)
  apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
  mkdirSync(SHOTS, { recursive: true })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await api?.close()
})

/** The answer's JSON as the page shows it: the text after the status line and headers. */
async function shownJson(tab: Page): Promise<any> {
  const text = (await tab.textContent('pre.response'))!
  return JSON.parse(text.slice(text.indexOf('\n\n') + 2))
}

function assertKept(url: string): void {
  const params = new URL(url).searchParams
  assert.equal(params.get('format'), 'api', url)
  assert.equal(params.get('AppAuthorization'), key, url)
}

test('browse to a question, page forward, filter, sign in, answer through the form and see the figures move', { skip }, async () => {
  const context = await browser!.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
  const tab = await context.newPage()
  const policyViolations: string[] = []
  tab.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) policyViolations.push(message.text())
  })
  // The visible part only: a full-page capture of a long listing can take longer than the test's patience on a busy machine.
  const shot = (name: string) => tab.screenshot({ path: path.join(SHOTS, `${name}.png`), timeout: 90_000 })

  await tab.goto(`${apiUrl}/api/?format=api&AppAuthorization=${key}`)
  assert.equal(await tab.textContent('h1'), 'Api Root')
  await shot('01-root')

  await tab.locator('pre.response a', { hasText: /\/api\/questions\/(\?format=api)?$/ }).click()
  assert.equal(await tab.textContent('h1'), 'Question List')
  assertKept(tab.url())
  const first = await shownJson(tab)
  assert.ok(first.count > 10, 'more than one page')

  await tab
    .locator('pre.response a', { hasText: /page=2/ })
    .first()
    .click()
  assertKept(tab.url())
  assert.equal(new URL(tab.url()).searchParams.get('page'), '2')
  const second = await shownJson(tab)
  assert.notDeepEqual(
    second.results.map((q: { id: number }) => q.id),
    first.results.map((q: { id: number }) => q.id),
  )
  await shot('02-questions-page-2')

  await tab.click('section.filters summary')
  await tab.selectOption('#f-subtype', 'likert')
  await tab.selectOption('#f-page_size', '25')
  await tab.click('section.filters button[type=submit]')
  assertKept(tab.url())
  const likert = await shownJson(tab)
  assert.ok(likert.results.length > 0)
  assert.ok(likert.results.every((q: { subtype: string }) => q.subtype === 'likert'))
  await shot('03-filtered')

  await tab
    .locator('pre.response a', { hasText: new RegExp(`/api/questions/${likert.results[0].id}/$`) })
    .first()
    .click()
  assertKept(tab.url())
  const questionUrl = tab.url()
  const before = await shownJson(tab)
  assert.deepEqual(before.my_vote, [])

  await tab.click('header summary')
  await tab.fill('#login-username', 'browser_reader')
  await tab.fill('#login-password', PASSWORD)
  await tab.click('header form button[type=submit]')
  assert.equal(tab.url(), questionUrl, 'back on the page where the person signed in')
  assert.match((await tab.textContent('header .user'))!, /Signed in as browser_reader/)
  await shot('04-signed-in')

  await tab.click('header > a')
  await tab
    .locator('pre.response a', { hasText: /\/api\/question_votes_light\/(\?format=api)?$/ })
    .first()
    .click()
  assertKept(tab.url())
  const form = tab.locator('section.method-post form').first()
  await form.locator('[name=object_id]').fill(String(before.id))
  await form.locator('[name=value]').fill('4')
  await shot('05-answer-form')
  await form.locator('button[type=submit]').click()
  assert.match((await tab.textContent('pre.response'))!, /HTTP 201 Created/)
  assert.equal((await shownJson(tab)).value, 4)
  await shot('06-answered')

  await tab.goto(questionUrl)
  const after = await shownJson(tab)
  assert.equal(after.direct_vote_count, before.direct_vote_count + 1)
  assert.equal(after.my_vote.length, 1)

  // Dark and on a phone: the page follows the system's scheme and fits the screen's width.
  await tab.emulateMedia({ colorScheme: 'dark' })
  await tab.setViewportSize({ width: 390, height: 844 })
  await tab.goto(questionUrl)
  const background = await tab.evaluate(() => getComputedStyle(document.body).backgroundColor)
  assert.equal(background, 'rgb(13, 17, 23)')
  assert.ok(await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling on a phone')
  await shot('07-phone-dark')

  await tab.click('header form button[type=submit]') // sign out
  assert.doesNotMatch((await tab.textContent('header'))!, /Signed in as/)
  assert.deepEqual(policyViolations, [], 'the page breaks none of its own policy')
  await context.close()
})
