import type { FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { fieldError, NotFound, ValidationFailed, invalidPk } from '../../core/errors.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { Id } from '../../http/schemas.ts'
import { authoredQuestion } from '../../access/question-access.ts'
import { questionCounters } from '../questions/question-counters.repository.ts'
import { MCQ_CHOICES_MESSAGE } from '../questions/question-rules.ts'
import { questionWriteErrors } from '../questions/question-writes.schemas.ts'
import { toChoiceListItem } from '../questions/questions.mapper.ts'
import { ChoiceListItem } from '../questions/questions.schemas.ts'
import type { Caller } from '../../core/caller.ts'
import { IdParams, NoContent } from '../../http/route-schemas.ts'
import { choicesRepository } from './choices.repository.ts'
import { publishedChoices } from './choices.routes.ts'
import { urlsFor } from '../../http/urls.ts'

const Text = Type.String({ minLength: 1, maxLength: 500 })
const ChoiceCreateBody = Type.Object({ question: Id, text: Text })
const ChoiceUpdateBody = Type.Object({ text: Type.Optional(Text) })
const ChoicePutBody = Type.Object({ text: Text })

function choiceText(text: string): string {
  const trimmed = text.trim()
  if (!trimmed) throw fieldError('text', 'This field may not be blank.')
  return trimmed
}

/**
 * Writes on the choices of multiple-choice questions, by the question's author or staff. A choice someone
 * chose keeps its text and stays; an mcq question keeps at least two choices. The question row is locked
 * so that answers and choice changes on it happen one at a time.
 */
export function choiceWriteRoutes(
  app: App,
  owner: (request: FastifyRequest) => Promise<number | undefined>,
  visible: (caller: Caller | null, id: number) => Promise<{ question_id: number } | undefined>,
): void {
  app.post('/api/question_choices/', {
    schema: {
      summary: 'Add a choice to one of your multiple-choice questions: 201 with the choice',
      body: ChoiceCreateBody,
      response: { 201: ChoiceListItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const body = request.body as Static<typeof ChoiceCreateBody>
      const text = choiceText(body.text)
      await authoredQuestion(app.db, signedIn(request), body.question)
      const row = await app.db.transaction().execute(async (trx) => {
        const question = await questionCounters(trx).lockQuestion(body.question)
        if (!question) throw fieldError('question', invalidPk(body.question))
        if (question.subtype !== 'mcq')
          throw fieldError('question', 'Only multiple-choice questions have choices; make it one by editing the question with its choices.')
        return choicesRepository(trx).add(question.id, text)
      })
      const item = toChoiceListItem(row, urlsFor(request))
      return reply.code(201).header('location', urlsFor(request).detail('question_choices', row.id)).send(item)
    },
  })

  /** Runs `work` with the choice's question locked; 404 when the choice is gone by then. */
  const withLockedChoice = async <T>(
    request: FastifyRequest,
    work: (trx: typeof app.db, choice: { id: number; question_id: number; text: string }) => Promise<T>,
  ) => {
    const named = await visible(request.caller, idParam(request) ?? 0)
    if (!named) throw NotFound()
    return app.db.transaction().execute(async (trx) => {
      await questionCounters(trx).lockQuestion(named.question_id)
      const choice = await choicesRepository(trx).find(idParam(request) ?? 0)
      if (!choice) throw NotFound()
      return work(trx, choice)
    })
  }

  for (const [method, body] of [
    ['PATCH', ChoiceUpdateBody],
    ['PUT', ChoicePutBody],
  ] as const) {
    app.route({
      method,
      url: '/api/question_choices/:id/',
      schema: {
        summary: 'Reword a choice nobody has chosen yet',
        params: IdParams,
        body,
        response: { 200: ChoiceListItem, ...questionWriteErrors },
      },
      config: { access: 'owner', owner },
      handler: async (request) => {
        const sent = (request.body as { text?: string }).text
        const row = await withLockedChoice(request, async (trx, choice) => {
          const choices = choicesRepository(trx)
          if (sent === undefined) return choices.row(choice.id)
          const text = choiceText(sent)
          if (text !== choice.text && (await choices.answered(choice.id)))
            throw fieldError('text', 'This choice has answers; its text cannot change.')
          return choices.reword(choice.id, text)
        })
        const [published] = await publishedChoices(app, [row])
        return toChoiceListItem(published, urlsFor(request))
      },
    })
  }

  app.delete('/api/question_choices/:id/', {
    schema: {
      summary: 'Remove a choice nobody has chosen; an mcq question keeps at least two',
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await withLockedChoice(request, async (trx, choice) => {
        const choices = choicesRepository(trx)
        if (await choices.answered(choice.id))
          throw ValidationFailed({ non_field_errors: ['This choice has answers and cannot be removed.'] })
        if ((await choices.countOf(choice.question_id)) <= 2) throw ValidationFailed({ non_field_errors: [MCQ_CHOICES_MESSAGE] })
        await choices.remove(choice.id, choice.question_id)
      })
      return reply.code(204).send(null)
    },
  })
}
