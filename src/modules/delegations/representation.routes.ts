import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { readErrors } from '../../http/schemas.ts'
import { visibleQuestion } from '../../access/question-access.ts'
import { Representation } from './representation.schemas.ts'
import { resolveRepresentation } from './representation.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { reducedUsers } from '../users/users.service.ts'
import { signedIn } from '../../http/permissions.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** GET /api/questions/<id>/representation/: where the caller's vote on a question goes. */
export function representationRoutes(app: App): void {
  app.get('/api/questions/:id/representation/', {
    schema: {
      summary: 'Where your vote on this question goes',
      description: 'Your own answer, or the delegation that wins for this question and the chain of trustees it leads through.',
      params: IdParams,
      response: { 200: Representation, ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Question Representation',
        description:
          'Where your vote on this question goes: your answer, or your delegation, the chain of trustees and who represents you.',
      },
    },
    handler: async (request) => {
      const caller = signedIn(request)
      const questionId = request.params.id
      if (!(await visibleQuestion(app.db, caller, questionId))) throw NotFound()
      const resolution = await resolveRepresentation(app.db, questionId, caller.id)
      const users = await reducedUsers(viewContextOf(app, request), resolution.chain)
      return {
        question: questionId,
        outcome: resolution.outcome,
        delegation: resolution.delegation,
        chain: resolution.chain.map((id) => users.get(id)).filter((user) => user !== undefined),
        representative: resolution.representative === null ? null : (users.get(resolution.representative) ?? null),
        representative_answer: resolution.representativeAnswer,
      }
    },
  })
}
