import fs from 'node:fs'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../db/paging.ts'
import { readErrors } from '../../http/schemas.ts'
import { MAX_LIMIT_COUNT, MAX_LONG_WALK } from '../next-question/next-question.schemas.ts'

const PerMinute = (description: string) => Type.Integer({ minimum: 1, description: `${description}, requests a minute` })

const GeneralLimits = Type.Object({
  page_size: Type.Object({
    default: Type.Integer({ description: 'results a page when page_size is not given' }),
    maximum: Type.Integer({ description: 'the most page_size gives; a larger one is served as this' }),
  }),
  limit_count: Type.Object({
    next_question_light: Type.Integer({ description: 'the most limit_count may ask for; more is refused' }),
    next_question: Type.Integer({ description: 'the most questions served; more is served as this' }),
  }),
  rate_limits: Type.Object({
    anonymous: PerMinute('each anonymous client (by address)'),
    user: PerMinute('each signed-in user'),
    app_key: PerMinute('each application key'),
    ip: PerMinute('each address, whoever signs in from it'),
    sign_in: PerMinute('sign-in attempts of every kind from one address'),
    sign_in_account: PerMinute('sign-in attempts on one account'),
    sign_up: PerMinute('registrations from one address'),
    sensitive: PerMinute('operations that send mail or text messages or change credentials, per user'),
  }),
  body_limit_bytes: Type.Integer({ description: 'the largest request body accepted; a larger one answers 413' }),
})

const Document = Type.Object({
  title: Type.String(),
  content: Type.String({ description: 'the document in Markdown' }),
})

/** A document kept in the repository's docs/ folder: its first heading is its title. */
function readDocument(name: string): { title: string; content: string } {
  const content = fs.readFileSync(new URL(`../../../docs/${name}.md`, import.meta.url), 'utf8')
  const title = /^# (.+)$/m.exec(content)?.[1] ?? name
  return { title, content }
}

/** general_limits, help and licence: what the service tells about itself. */
export function siteInfoRoutes(app: App): void {
  const limits = app.config.rateLimits
  const generalLimits = {
    page_size: { default: DEFAULT_PAGE_SIZE, maximum: MAX_PAGE_SIZE },
    limit_count: { next_question_light: MAX_LIMIT_COUNT, next_question: MAX_LONG_WALK },
    rate_limits: {
      anonymous: limits.anonymous,
      user: limits.user,
      app_key: limits.appKey,
      ip: limits.ip,
      sign_in: limits.signIn,
      sign_in_account: limits.signInAccount,
      sign_up: limits.signUp,
      sensitive: limits.sensitive,
    },
    body_limit_bytes: app.config.bodyLimit,
  }
  app.get('/api/general_limits/', {
    schema: { summary: 'The limits in force', response: { 200: GeneralLimits, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'General Limits', description: 'Page sizes, the next question limits and the rate limits this service applies.' },
    },
    handler: async () => generalLimits,
  })

  for (const [name, description] of [
    ['help', 'How to use the service and its API.'],
    ['licence', 'The licences of the software, the results and what people write.'],
  ] as const) {
    const document = readDocument(name)
    app.get(`/api/${name}/`, {
      schema: { summary: document.title, response: { 200: Document, ...readErrors } },
      config: { access: 'anyone', resource: { name: document.title, description } },
      handler: async () => document,
    })
  }
}
