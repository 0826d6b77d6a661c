import { recordRetag, tagOrder } from '../../liquid/liquid.retag.ts'
import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { fieldError, NotFound, invalidPk } from '../../../core/errors.ts'
import { listing, pageOfRows } from '../../../http/listing.ts'
import { column, orderingTerms } from '../../../db/ordering.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { Page, readErrors } from '../../../http/schemas.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { authoredQuestion } from '../../../access/question-access.ts'
import { questionCounters } from '../question-counters.repository.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import {
  questionTagOrdering,
  questionTagsRepository,
  questionTagWrites,
  selectQuestionTag,
  toQuestionTagItem,
  type QuestionTagRow,
} from './question-tags.repository.ts'
import { QuestionTagCreateBody, QuestionTagItem, QuestionTagListQuery } from './question-tags.schemas.ts'
import { IdParams, NoContent } from '../../../http/route-schemas.ts'
import { withFigures } from '../../../disclosure/figures.ts'
import { loadPublishedFigures } from '../published-figures.ts'
import { urlsFor } from '../../../http/urls.ts'

const DUPLICATE = { non_field_errors: ['The fields question, tag must make a unique set.'] }

/** question_tags: the tags of questions, added and removed by the question's author (or staff). */
export function questionTagRoutes(app: App): void {
  const repository = () => questionTagsRepository(app.db)
  /** The rows with the figures everyone sees (src/disclosure/figures.ts): one statement for their questions. */
  const published = async (rows: QuestionTagRow[]) => {
    if (rows.length === 0) return rows
    const figures = await loadPublishedFigures(
      app.db,
      rows.map((row) => row.question_id),
      app.config.minCellSize,
    )
    return rows.map((row) => withFigures(row, figures.questionTag(row.id)))
  }
  const owner = (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? Promise.resolve(undefined) : repository().owner(id, request.caller)
  }

  app.get('/api/question_tags/', {
    schema: { summary: 'Tags of questions', querystring: QuestionTagListQuery, response: { 200: Page(QuestionTagItem), ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Tag List',
        description: 'The tags questions carry, the topic first, with the votes on how well each fits.',
      },
    },
    handler: async (request) => {
      const urls = urlsFor(request)
      const ordering = orderingTerms(
        request.query.ordering,
        questionTagOrdering(app.config.minCellSize),
        ['question', 'position'],
        column('question_tags.id'),
        (name) => (name === 'question' ? column('question_tags.question_id') : name === 'tag' ? column('question_tags.tag_id') : null),
      )
      const result = await pageOfRows<QuestionTagRow>(
        request,
        repository().filtered(request.query, request.caller),
        selectQuestionTag,
        ordering,
      )
      return listing(request, result, async (rows) => (await published(rows)).map((row) => toQuestionTagItem(row, urls)))
    },
  })

  app.post('/api/question_tags/', {
    schema: {
      summary: 'Tag one of your questions: 201 with the question-tag',
      body: QuestionTagCreateBody,
      response: { 201: QuestionTagItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const { question: questionId, tag: tagId } = request.body
      await authoredQuestion(app.db, signedIn(request), questionId)
      const id = await refusingViolations(
        () =>
          app.db.transaction().execute(async (trx) => {
            const counters = questionCounters(trx)
            const question = await counters.lockQuestion(questionId)
            if (!question) throw fieldError('question', invalidPk(questionId))
            const writes = questionTagWrites(trx)
            if (!(await writes.tagExists(tagId))) throw fieldError('tag', invalidPk(tagId))
            const before = await counters.carriedTags(questionId)
            const order = await tagOrder(trx, questionId)
            await counters.lockTags([...before, tagId])
            const created = await writes.add(question, tagId)
            await counters.retag(questionId, before, await counters.carriedTags(questionId))
            await recordRetag(trx, questionId, signedIn(request).id, order)
            return created
          }),
        { named: { question_tags_unique: DUPLICATE, question_tags_tag_id_fkey: { tag: [invalidPk(tagId)] } } },
      )
      const [row] = await published([(await repository().find(id, request.caller))!])
      const item = toQuestionTagItem(row, urlsFor(request))
      return reply.code(201).header('location', item.url).send(item)
    },
  })

  app.get('/api/question_tags/:id/', {
    schema: { summary: 'One tag of a question', params: IdParams, response: { 200: QuestionTagItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Tag Instance', description: 'One tag of a question.' } },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      const [shown] = await published([row])
      return toQuestionTagItem(shown, urlsFor(request))
    },
  })

  app.delete('/api/question_tags/:id/', {
    schema: {
      summary: 'Untag your question; removing the topic makes the next tag the topic',
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await app.db.transaction().execute(async (trx) => {
        const findTag = () => questionTagWrites(trx).find(request.params.id)
        const named = await findTag()
        if (!named) throw NotFound()
        const counters = questionCounters(trx)
        const question = await counters.lockQuestion(named.question_id)
        // Read again under the question's lock: a concurrent untagging may have come first.
        const questionTag = question ? await findTag() : undefined
        if (!question || !questionTag) throw NotFound()
        const before = await counters.carriedTags(question.id)
        const order = await tagOrder(trx, question.id)
        await counters.lockTags(before)
        await questionTagWrites(trx).remove(question, questionTag)
        await counters.retag(question.id, before, await counters.carriedTags(question.id))
        await recordRetag(trx, question.id, signedIn(request).id, order)
      })
      return reply.code(204).send(null)
    },
  })
}
