import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { type Browser } from 'playwright-core'
import { chromiumAvailable, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { campsCollection } from '../opinion-groups/camps.ts'
import { censusAges, insertUser } from '../helpers/fixtures.ts'

/**
 * The pictures the API draws, opened in a real browser: the opinion map (`/api/opinion_groups/?format=svg`) must
 * parse as SVG (question texts with markup characters included), draw a disc per group and the legend; a
 * question's weighted result (`question_weighted_demographics/<id>/age/?format=svg`, and `.../area/` by region) must
 * show the numbers the JSON serves, at a phone's width and in a dark colour scheme too, alone and on a shared page. Screenshots go to test/browser/screenshots/ (ignored
 * by git).
 */
const SHOTS = path.join(import.meta.dirname, 'screenshots')

let api: TestApp
let apiUrl: string
let collection: number
let questions: number[]
let browser: Browser | undefined

before(async () => {
  if (!chromiumAvailable) return
  api = await createTestApp('empty', { OPINION_GROUPS_REFRESH_MS: '0' })
  ;({ collection, questions } = await campsCollection(api, 24, (q) => `Should <city> & "county" councils fund plan ${q}?`))
  apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await api?.close()
})

test('the opinion map opens as a picture: a disc per group, the legend in words, no error', { skip: skipWithoutChromium }, async () => {
  const body = await api.json(`/api/opinion_groups/?collection=${collection}`)
  const tab = await browser!.newPage()
  tab.setDefaultTimeout(90_000)
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  tab.on('pageerror', (error) => problems.push(String(error)))
  // A picture opened on its own: the browser also asks for the site's icon, which an API does not serve.
  await tab.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
  const response = await tab.goto(`${apiUrl}/api/opinion_groups/?collection=${collection}&format=svg`)
  assert.equal(response?.status(), 200)
  // A document that failed to parse as XML shows Chromium's parsererror in place of the picture.
  assert.equal(await tab.evaluate(() => document.documentElement.localName), 'svg')
  assert.equal(await tab.locator('parsererror').count(), 0)
  assert.equal(await tab.locator('g.group circle').count(), body.groups.length)
  assert.equal(body.groups.length, 2)
  const legend = (await tab.locator('text.legend').allTextContents()).join('\n')
  assert.match(legend, /Group [A-Z]: 12 people \(50%\)/)
  assert.match(legend, /Should <city> & "county" councils fund plan 8\?/, 'the shared question, its text as written')
  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: path.join(SHOTS, 'opinion-map.png') })
  assert.deepEqual(problems, [], 'errors in the page')
})

test(
  'a question’s result as a picture shows the shares the JSON serves, on a phone and in dark mode',
  { skip: skipWithoutChromium },
  async () => {
    const url = `/api/question_weighted_demographics/${questions[0]}/age/`
    const body = await api.json(url)
    for (const [name, options] of [
      ['result', { viewport: { width: 1280, height: 800 }, colorScheme: 'light' as const }],
      ['result-phone-dark', { viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const }],
    ] as const) {
      const context = await browser!.newContext(options)
      const tab = await context.newPage()
      tab.setDefaultTimeout(90_000)
      const problems: string[] = []
      tab.on('pageerror', (error) => problems.push(String(error)))
      await tab.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
      assert.equal((await tab.goto(`${apiUrl}${url}?format=svg`))?.status(), 200)
      assert.equal(await tab.evaluate(() => document.documentElement.localName), 'svg')
      const drawn = await tab.locator('g.bar[data-kind="answered"] text.value').allTextContents()
      const served = ['1', '2', '3', '4', '5']
        .map((level) => body.overall.shares[level].percentage as number | null)
        .filter((p): p is number => p !== null)
        .map((p) => `${Math.round(p * 10) / 10}%`)
      assert.deepEqual(drawn, served, 'the shares drawn are the shares served')
      mkdirSync(SHOTS, { recursive: true })
      await tab.screenshot({ path: path.join(SHOTS, `${name}.png`) })
      assert.deepEqual(problems, [])
      await context.close()
    }
  },
)

test('the browsable page of the map shows the picture, loaded under the page’s policy', { skip: skipWithoutChromium }, async () => {
  const tab = await browser!.newPage({ viewport: { width: 390, height: 844 } })
  tab.setDefaultTimeout(90_000)
  const problems: string[] = []
  tab.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  await tab.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
  const response = await tab.goto(`${apiUrl}/api/opinion_groups/?collection=${collection}&format=api`)
  assert.equal(response?.status(), 200)
  const picture = tab.locator('figure.picture img')
  await picture.waitFor()
  await tab.waitForFunction(() => (document.querySelector('figure.picture img') as HTMLImageElement | null)?.complete === true)
  const size = await picture.evaluate((img: HTMLImageElement) => ({ width: img.naturalWidth, shown: img.getBoundingClientRect().width }))
  assert.ok(size.width > 0, 'the image loaded')
  assert.ok(size.shown <= 390, `the picture fits a phone's width: ${size.shown}px`)
  mkdirSync(SHOTS, { recursive: true })
  await tab.screenshot({ path: path.join(SHOTS, 'opinion-map-page-phone.png'), fullPage: true })
  assert.deepEqual(problems, [], 'no error (a blocked image would be one)')
})

test(
  "a shared link's page draws each question inline, at a phone's width, with the numbers served",
  { skip: skipWithoutChromium },
  async () => {
    const owner = await insertUser(api.database.db)
    const created = await api.send('POST', '/api/create_shareable_link/', { question: questions[0] }, await api.tokenFor(owner.id))
    assert.equal(created.statusCode, 201, created.body)
    const { share_url: shareUrl } = created.json()
    const served = (await api.json(new URL(shareUrl).pathname)).question
    const tab = await browser!.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' })
    tab.setDefaultTimeout(90_000)
    const problems: string[] = []
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    await tab.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
    const response = await tab.goto(`${apiUrl}${new URL(shareUrl).pathname}`)
    assert.equal(response?.status(), 200)
    const picture = tab.locator('svg.picture')
    assert.equal(await picture.count(), 1)
    const box = (await picture.boundingBox())!
    assert.ok(box.width > 200 && box.width <= 390 && box.height > 50, `the picture fits a phone's width: ${JSON.stringify(box)}`)
    const levels = ['minimum', 'low', 'medium', 'high', 'maximum']
    const drawn = await tab.locator('g.bar[data-kind="direct"] text').allTextContents()
    assert.deepEqual(
      drawn,
      levels.map((level) => `${Math.round((1000 * served[`direct_${level}`]) / served.direct_vote_count) / 10}%`),
    )
    // The census-weighted picture of the same question fits too, and writes the weighted mean the API serves.
    const weighted = tab.locator('figure.weighted svg')
    assert.equal(await weighted.count(), 1)
    const weightedBox = (await weighted.boundingBox())!
    assert.ok(
      weightedBox.width > 200 && weightedBox.width <= 390,
      `the weighted picture fits a phone's width: ${JSON.stringify(weightedBox)}`,
    )
    const result = await api.json(`/api/question_weighted_demographics/${questions[0]}/age/`)
    const mean = result.overall.weighted_average_vote ?? result.overall.average_vote
    assert.ok((await weighted.textContent())!.includes(`mean ${Math.round(mean * 10) / 10}`), 'the mean served is written')
    mkdirSync(SHOTS, { recursive: true })
    await tab.screenshot({ path: path.join(SHOTS, 'shared-page-phone-dark.png'), fullPage: true })
    assert.deepEqual(problems, [], 'errors in the page')
  },
)

test(
  'by region: the weighted means drawn are those served, alone and on the shared page, at a phone’s width in dark mode',
  { skip: skipWithoutChromium },
  async () => {
    const db = api.database.db
    const regions = await Promise.all(
      ['Harbour & <Hills>', 'Upper Valley'].map(async (name, i) => {
        const { id } = await db
          .insertInto('areas')
          .values({ code: `BR-${i}`, name, m_type: 'region' })
          .returning('id')
          .executeTakeFirstOrThrow()
        const ages = censusAges({ 30: 1000 * (i + 1), 60: 3000 })
        await db
          .insertInto('census_data')
          .values({ area_id: id, code: `BR-C${i}`, name: 'census', date: '2021-03-21', ages, all_ages: ages.reduce((a, b) => a + b, 0) })
          .execute()
        return id
      }),
    )
    const owner = await insertUser(db)
    const token = await api.tokenFor(owner.id)
    const question = (await api.send('POST', '/api/questions/', { question: 'Should the harbour ferry run at night?' }, token)).json()
      .id as number
    for (let i = 0; i < 12; i++) {
      const voter = await insertUser(db, { dob: i % 2 ? '1994-05-01' : '1964-05-01', region_id: regions[i % 2] })
      const vote = await api.send('POST', '/api/question_votes/', { object_id: question, value: 1 + (i % 5) }, await api.tokenFor(voter.id))
      assert.equal(vote.statusCode, 201, vote.body)
    }
    const url = `/api/question_weighted_demographics/${question}/area/`
    const served = await api.json(url)
    assert.equal(served.data.length, 2, 'both regions are published')
    const written = (value: number | null) => (value === null ? '–' : `${Math.round(value * 10) / 10}`)
    const expected = [served.overall, ...served.data].map((point) => written(point.weighted_average_vote ?? point.average_vote))
    const link = await api.send('POST', '/api/create_shareable_link/', { question }, token)
    assert.equal(link.statusCode, 201, link.body)
    for (const [name, address, picture] of [
      ['area-phone-dark', `${url}?format=svg`, 'svg'],
      [
        'shared-area-phone-dark',
        new URL(link.json().share_url).pathname,
        `figure.weighted svg[aria-labelledby="weighted-${question}-area"]`,
      ],
    ] as const) {
      const context = await browser!.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' })
      const tab = await context.newPage()
      tab.setDefaultTimeout(90_000)
      const problems: string[] = []
      tab.on('pageerror', (error) => problems.push(String(error)))
      await tab.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }))
      assert.equal((await tab.goto(`${apiUrl}${address}`))?.status(), 200)
      const svg = tab.locator(picture)
      assert.equal(await svg.count(), 1)
      assert.deepEqual(await svg.locator('g.band text.value').allTextContents(), expected, 'the means drawn are the means served')
      const labels = await svg.locator('g.band > text:first-child').allTextContents()
      assert.ok(
        labels.some((label) => label.startsWith('Harbour & <Hills> (n = ')),
        `the region by its name: ${labels.join(' | ')}`,
      )
      const box = (await svg.boundingBox())!
      assert.ok(box.width > 200 && box.width <= 390, `the picture fits a phone's width: ${JSON.stringify(box)}`)
      mkdirSync(SHOTS, { recursive: true })
      await tab.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: picture !== 'svg' })
      assert.deepEqual(problems, [])
      await context.close()
    }
  },
)
