import type { FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { signedIn } from '../../http/permissions.ts'
import { Id } from '../../http/schemas.ts'
import { questionWriteErrors } from '../questions/question-writes.schemas.ts'
import { toChoiceListItem } from '../questions/questions.mapper.ts'
import { ChoiceListItem } from '../questions/questions.schemas.ts'
import { IdParams, NoContent } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'
import { addChoice, publishedChoices, removeChoice, rewordChoice } from './choices.service.ts'

const Text = Type.String({ minLength: 1, maxLength: 500 })
const ChoiceCreateBody = Type.Object({ question: Id, text: Text })
const ChoiceUpdateBody = Type.Object({ text: Type.Optional(Text) })
const ChoicePutBody = Type.Object({ text: Text })

/** Writes on the choices of multiple-choice questions, by the question's author or staff (choices.service.ts). */
export function choiceWriteRoutes(app: App, owner: (request: FastifyRequest) => Promise<number | undefined>): void {
  app.post('/api/question_choices/', {
    schema: {
      summary: 'Add a choice to one of your multiple-choice questions: 201 with the choice',
      body: ChoiceCreateBody,
      response: { 201: ChoiceListItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const body = request.body as Static<typeof ChoiceCreateBody>
      const row = await addChoice(app.db, signedIn(request), body.question, body.text)
      const urls = urlsFor(request)
      return reply.code(201).header('location', urls.detail('question_choices', row.id)).send(toChoiceListItem(row, urls))
    },
  })

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
      handler: async (request: FastifyRequest<{ Params: { id: number }; Body: { text?: string } }>) => {
        const row = await rewordChoice(app.db, request.caller, request.params.id, request.body.text)
        const [published] = await publishedChoices(app.db, [row], app.config.minCellSize)
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
      await removeChoice(app.db, request.caller, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
