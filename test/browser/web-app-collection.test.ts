import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser } from 'playwright-core'
import { chromiumAvailable, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { collectionWorld, type Person } from '../collections/support.ts'

/**
 * The original web app's collection flow (ReactLite: CollectionsList, CollectionIntro, SurveyFlow, QuestionFlow,
 * QuestionFlowVote, EndScreen), its calls in its shapes, in Chromium on another origin: the landing card says
 * "<question_count> questions", the intro shows Start only when question_count is not 0, the flow sizes its
 * list of items by the items' `count`, fills it page by page (page_size 10), reads `items[i].object_id` for each
 * step, answers each question through the collection, and goes to the end screen after the last item. On a
 * collection holding drafts at its start, middle and end, as another person and as their author; and on one whose
 * only question is a draft.
 */
const available = chromiumAvailable
const skip = skipWithoutChromium

let api: TestApp
let apiUrl: string
let page: http.Server
let pageUrl: string
let browser: Browser | undefined
let owner: Person, voter: Person
let survey: number, onlyDraft: number
let visibleQuestions: number, ownerQuestions: number

/** The page's script: the web app's collection screens, as functions of the collection and the signed-in token. */
function webAppScript(base: string, plan: { survey: number; onlyDraft: number; voter: string; owner: string }): string {
  return `
  const base = ${JSON.stringify(base)}
  const plan = ${JSON.stringify(plan)}
  const call = async (method, path, token, body) => {
    const headers = {}
    if (token) headers.Authorization = 'Token ' + token
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await response.text()
    if (response.status >= 400) throw new Error(method + ' ' + path + ' answered ' + response.status + ': ' + text)
    return text ? JSON.parse(text) : null
  }
  // CollectionStore's constructor, and CollectionsList's card: "{collection.question_count} questions".
  const cards = async (token) => {
    const list = await call('GET', '/api/question_collections/?ordering=-created_at', token)
    return Object.fromEntries(list.results.map((c) => [c.id, c.question_count + ' questions']))
  }
  // CollectionIntro: Start when question_count, else the apology.
  const intro = async (id, token) => {
    const collection = await call('GET', '/api/question_collections/' + id + '/', token)
    return collection.question_count ? 'Start' : 'Sorry,  there are no questions currently in this survey'
  }
  // SurveyFlow, QuestionFlow and QuestionFlowVote, step by step to navigateEnd2.
  const flow = async (id, token) => {
    const questions = new Map() // QuestionStore.questions
    let items = null // SurveyFlow's state.collectionItems
    const loadQuestionsByPage = async (page) => {
      const res = await call('GET', '/api/question_collection_items/?parent=' + id + '&ordering=order&page_size=10&page=' + page, token)
      for (const item of res.results) if (item.type === 'Q') { questions.set(item.content_object.id, item.content_object); delete item.content_object }
      if (!items) { items = []; for (let j = 0; j < res.count; j++) items[j] = null }
      for (let i = 0; i < res.results.length; i++) items[(page - 1) * 10 + i] = res.results[i]
    }
    await call('GET', '/api/question_collections/' + id + '/', token) // getCollectionById
    await loadQuestionsByPage(1)
    const steps = []
    let progress = 0
    for (let index = 0; ; index++) {
      const currentItem = items[index]
      const currentQuestion = questions.get(currentItem.object_id) // QuestionFlow.render: a missing item throws here
      if (currentItem.type === 'Q') {
        const body = { object_id: currentQuestion.id, value: 4, collection: id, private: false, analytics_interface: 'collection',
          analytics_os: navigator.appVersion.slice(0, 100), analytics_browser: navigator.appCodeName, analytics_parent_url: location.href.slice(0, 200), analytics_location: null }
        await call('POST', '/api/question_votes/', token, body)
        steps.push('Q' + currentQuestion.id)
      } else steps.push('B:' + currentItem.content_object.title)
      progress = (index + 1) / items.length * 100
      // navigateNext
      if (index + 1 === items.length) { steps.push('end'); break }
      const curPage = Math.ceil(index / 10)
      const nextIndex = curPage * 10
      if (nextIndex < items.length && !items[nextIndex]) await loadQuestionsByPage(curPage + 1)
    }
    const collection = await call('GET', '/api/question_collections/' + id + '/', token)
    const stats = await call('GET', '/api/collection_stats/' + id + '/', token)
    return { steps, progress, answered: collection.answered, question_count: collection.question_count, complete_count: stats.complete_count, completion: stats.completion }
  }
  // The intro, then Start when it offers it: the vote page, or the error that leaves it blank.
  const visit = async (id, token) => {
    const shown = await intro(id, token)
    if (shown !== 'Start') return { intro: shown }
    try { return { intro: shown, flow: await flow(id, token) } } catch (error) { return { intro: shown, error: String(error) } }
  }
  ;(async () => {
    const out = {}
    out.anonymousCards = await cards(null)
    out.voterCards = await cards(plan.voter)
    out.ownerCards = await cards(plan.owner)
    out.voter = await visit(plan.survey, plan.voter)
    out.owner = await visit(plan.survey, plan.owner)
    out.anonymousDraft = await intro(plan.onlyDraft, null)
    out.voterDraft = await visit(plan.onlyDraft, plan.voter)
    out.ownerDraft = await visit(plan.onlyDraft, plan.owner)
    document.getElementById('result').textContent = JSON.stringify(out)
  })().catch((error) => { document.getElementById('result').textContent = JSON.stringify({ error: String(error && error.stack || error) }) })`
}

before(async () => {
  if (!available) return
  page = http.createServer()
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
  // k = 1: collection_stats shows the figures of one answerer.
  api = await createTestApp('tiny', { CORS_ORIGINS: pageUrl, MIN_CELL_SIZE: '1' })
  apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
  const world = collectionWorld(api)
  owner = await world.person()
  voter = await world.person()
  // Fourteen questions, the first, the eighth and the last the owner's drafts, and a break: twelve items for others.
  const collection = await world.collection(owner)
  for (let i = 0; i < 14; i++) {
    if (i === 4) await world.add(owner, { parent: collection.id, type: 'B', content_object: [{ title: 'Half way', text: 'Thank you' }] })
    const draft = i === 0 || i === 7 || i === 13
    await world.add(owner, { parent: collection.id, object_id: await world.question(owner.id, { publish: !draft }), type: 'Q' })
  }
  survey = collection.id
  visibleQuestions = 11
  ownerQuestions = 14
  const lonely = await world.collection(owner)
  await world.add(owner, { parent: lonely.id, object_id: await world.question(owner.id, { publish: false }), type: 'Q' })
  onlyDraft = lonely.id
  const plan = { survey, onlyDraft, voter: voter.token, owner: owner.token }
  page.on('request', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(`<!doctype html><title>web app</title><pre id="result"></pre><script>${webAppScript(apiUrl, plan)}</script>`)
  })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await api?.close()
  await new Promise((resolve) => (page ? page.close(resolve) : resolve(undefined)))
})

test('the web app walks a collection holding drafts to its end screen, as another person and as their author', { skip }, async () => {
  const tab = await browser!.newPage()
  await tab.goto(`${pageUrl}/`)
  await tab.waitForFunction(() => document.getElementById('result')?.textContent !== '', undefined, { timeout: 120_000 })
  const result = JSON.parse((await tab.textContent('#result'))!)
  assert.equal(result.error, undefined, result.error)

  // The cards count what each caller will walk through.
  for (const cards of [result.anonymousCards, result.voterCards]) {
    assert.equal(cards[survey], `${visibleQuestions} questions`)
    assert.equal(cards[onlyDraft], '0 questions')
  }
  assert.equal(result.ownerCards[survey], `${ownerQuestions} questions`)
  assert.equal(result.ownerCards[onlyDraft], '1 questions')

  // Another person: eleven questions and the break, then the end screen; everything listed answered.
  assert.deepEqual([result.voter.intro, result.voter.error], ['Start', undefined])
  const voterFlow = result.voter.flow
  assert.equal(voterFlow.steps.length, visibleQuestions + 2, voterFlow.steps.join(' '))
  assert.equal(voterFlow.steps.filter((step: string) => step.startsWith('Q')).length, visibleQuestions)
  assert.ok(voterFlow.steps.includes('B:Half way'))
  assert.equal(voterFlow.steps.at(-1), 'end')
  assert.equal(voterFlow.progress, 100)
  assert.deepEqual(
    [voterFlow.question_count, voterFlow.answered, voterFlow.complete_count, voterFlow.completion],
    [visibleQuestions, 100, 1, 100],
  )

  // The author walks their drafts too.
  assert.deepEqual([result.owner.intro, result.owner.error], ['Start', undefined])
  const ownerFlow = result.owner.flow
  assert.equal(ownerFlow.steps.filter((step: string) => step.startsWith('Q')).length, ownerQuestions)
  assert.equal(ownerFlow.steps.at(-1), 'end')
  // Of the two who answered, the author alone answered every question they list: 25 answers of 2 × 14.
  assert.deepEqual(
    [ownerFlow.question_count, ownerFlow.answered, ownerFlow.complete_count, ownerFlow.completion],
    [ownerQuestions, 100, 1, 89.29],
  )

  // Only a draft: others are told there is nothing to answer (no Start, so no blank vote page); its author walks it.
  const apology = 'Sorry,  there are no questions currently in this survey'
  assert.equal(result.anonymousDraft, apology)
  assert.deepEqual(result.voterDraft, { intro: apology })
  assert.equal(result.ownerDraft.error, undefined, result.ownerDraft.error)
  assert.deepEqual([result.ownerDraft.flow.steps.length, result.ownerDraft.flow.answered], [2, 100])
})
