import fs from 'node:fs'
import autocannon, { type Request } from 'autocannon'
import type { LoadRun } from './autocannon-runner.ts'

/**
 * Runs one autocannon load in its own process, so the generator never shares an event loop with a server.
 * Reads the run (JSON) from the file named in argv, prints autocannon's result (JSON) on stdout. Write runs build each request from
 * the one before (autocannon's setupRequest/onResponse hooks, with a context per connection).
 */
const run = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as LoadRun
const json = { 'content-type': 'application/json' }
const rating = () => 1 + Math.floor(Math.random() * 5)
// Shared by every connection: each one takes the next user (or the next (user, question) pair) from it.
let taken = 0

function answeringLoop(tokens: string[], tags: number[]): Request[] {
  return [
    {
      method: 'GET',
      setupRequest: (request, context) => {
        const user = taken++ % tokens.length
        context.token = tokens[user]
        // Each user asks within one of many tags: the answers spread over as many questions at once.
        return {
          ...request,
          path: `/api/next_question_light/?tags__tag=${tags[user % tags.length]}`,
          headers: { authorization: `Token ${tokens[user]}` },
        }
      },
      onResponse: (status, body, context) => {
        const next = status === 200 ? (JSON.parse(body) as { results: { id: number; choices: { id: number }[] }[] }).results[0] : undefined
        context.next = next ?? null
      },
    },
    // A choice question is answered by choosing; the web app sends value 5 with the choice.
    { method: 'POST', setupRequest: (request, context) => answerTo(request, context.next as Next, context.token as string) },
  ]
}

function surge(tokens: string[], questions: number[]): Request[] {
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const pair = taken++
        const token = tokens[Math.floor(pair / questions.length) % tokens.length]
        const body = JSON.stringify({ object_id: questions[pair % questions.length], value: rating() })
        return { ...request, path: '/api/question_votes/', headers: { ...json, authorization: `Token ${token}` }, body }
      },
    },
  ]
}

type Next = { id: number; choices: { id: number }[] } | null

/** The answer to the next question as the web app sends it: a choice question by its first choice, else a rating. */
function answerTo(request: Request, next: Next, token: string): Request {
  const headers = { ...json, authorization: `Token ${token}` }
  // Nothing left to answer (a person who has answered it all, on a seed earlier runs answered): ask again instead.
  if (next === null)
    return { ...request, method: 'GET', path: '/api/next_question_light/', headers: { authorization: `Token ${token}` }, body: undefined }
  if (next.choices.length > 0)
    return { ...request, path: '/api/question_choice_votes/', headers, body: JSON.stringify({ object_id: next.choices[0].id, value: 5 }) }
  return { ...request, path: '/api/question_votes/', headers, body: JSON.stringify({ object_id: next.id, value: rating() }) }
}

/**
 * The survey surge: each connection is one person walking the collection in its order (next question, answer,
 * again), so everyone answers the same questions at nearly the same moment. autocannon starts every pass over the
 * requests with a fresh context, so one pass is one person's whole walk: a next question and an answer for each
 * question of the collection, then the next question that finds the walk done (a walk that ends early asks again).
 */
function surveyWalk(tokens: string[], collection: number, questions: number): Request[] {
  const path = `/api/next_question_light/?in_collections__parent=${collection}&order=true&limit_count=1`
  const next: Request = {
    method: 'GET',
    setupRequest: (request, context) => {
      context.token ??= tokens[taken++ % tokens.length]
      return { ...request, path, headers: { authorization: `Token ${context.token as string}` } }
    },
    onResponse: (status, body, context) => {
      context.next = status === 200 ? ((JSON.parse(body) as { results: NonNullable<Next>[] }).results[0] ?? null) : null
    },
  }
  const answer: Request = {
    method: 'POST',
    setupRequest: (request, context) => answerTo(request, context.next as Next, context.token as string),
  }
  return [...Array.from({ length: questions }, () => [next, answer]).flat(), next]
}

/**
 * The broadcast moment: every pass a person who has answered nothing opens the collection and answers its first
 * question, so every answer is a new person's, all on one question.
 */
function broadcast(tokens: string[], collection: number): Request[] {
  return surveyWalk(tokens, collection, 1).slice(0, 2)
}

/** Every request from the next person of the crowd. */
function crowd(tokens: string[]): Request[] {
  return [
    { method: 'GET', setupRequest: (request) => ({ ...request, headers: { authorization: `Token ${tokens[taken++ % tokens.length]}` } }) },
  ]
}

/** Each write request with the application key, as the clients would send it. */
function keyed(requests: Request[] | undefined, key: string | undefined): Request[] | undefined {
  if (!requests || !key) return requests
  return requests.map((step) => ({
    ...step,
    setupRequest: (request, context) => {
      const made = step.setupRequest ? step.setupRequest(request, context) : request
      const path = made.path ?? '/'
      return { ...made, path: `${path}${path.includes('?') ? '&' : '?'}AppAuthorization=${key}` }
    },
  }))
}

const writes =
  run.write?.kind === 'answering'
    ? answeringLoop(run.write.tokens, run.write.tags)
    : run.write?.kind === 'surge'
      ? surge(run.write.tokens, run.write.questions)
      : run.write?.kind === 'survey'
        ? surveyWalk(run.write.tokens, run.write.collection, run.write.questions)
        : run.write?.kind === 'broadcast'
          ? broadcast(run.write.tokens, run.write.collection)
          : undefined
const requests = run.crowd ? crowd(run.crowd) : keyed(writes, run.appKey)
const result = await autocannon({
  url: run.url,
  connections: run.connections,
  duration: run.duration,
  method: run.method ?? 'GET',
  headers: run.headers,
  body: run.body,
  requests,
})
console.log(JSON.stringify(result))
