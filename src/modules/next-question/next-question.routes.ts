import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { readErrors } from '../../http/schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { nextQuestions } from './next-question.service.ts'
import type { KeptQuestions } from './kept-questions.ts'
import {
  ClampedQuery,
  LightQuery,
  MAX_LIMIT_COUNT,
  MAX_LONG_WALK,
  NextQuestionResult,
  type NextQuestionQuery,
} from './next-question.schemas.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** What the next question keeps beside its walks (kept-questions.ts), listening from the app's start. */
    keptQuestions: KeptQuestions
  }
}

export function nextQuestionRoutes(app: App): void {
  const kept = app.keptQuestions
  /** The same handler on both paths; only the most questions one answer carries differs. */
  const handler =
    (maxLimit: number) =>
    async (request: FastifyRequest): Promise<NextQuestionResult> =>
      nextQuestions(
        viewContextOf(app, request),
        {
          remember: (key, build) => app.responseCache.remember(key, build),
          own: (userId) => app.ownRecords.of(userId),
          kept,
        },
        request.query as NextQuestionQuery,
        maxLimit,
      )

  const description =
    'The next questions the caller has not answered, with how many match the query and how many remain. ' +
    'Anonymous callers have answered nothing. See docs/next-question.md.'
  app.get('/api/next_question_light/', {
    schema: {
      summary: 'Next unanswered questions',
      description,
      querystring: LightQuery,
      response: { 200: NextQuestionResult, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Next Question Light', description: 'The next questions the caller has not answered yet.' },
    },
    handler: handler(MAX_LIMIT_COUNT),
  })
  // The clients' path: they send limit_count=100 and walk a collection, topic or profile in one call, so up to 100
  // are served; more is served as 100 rather than refused.
  app.get('/api/next_question/', {
    schema: {
      summary: 'Next unanswered questions (up to 100; limit_count above 100 served as 100)',
      description,
      querystring: ClampedQuery,
      response: { 200: NextQuestionResult, ...readErrors },
    },
    config: { access: 'anyone', resource: { name: 'Next Question', description: 'The next questions the caller has not answered yet.' } },
    handler: handler(MAX_LONG_WALK),
  })
}
