import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { iso } from '../../../core/time.ts'
import { loadFullUsers } from '../../users/users.service.ts'
import { visibleQuestion } from '../../../access/question-access.ts'
import { friendsAnswersPage } from './friends-answers.repository.ts'
import { FriendAnswer, FriendAnswersQuery } from './friends-answers.schemas.ts'
import { IdParams } from '../../../http/route-schemas.ts'
import { toReducedUser } from '../../users/users.mapper.ts'
import { signedIn } from '../../../http/permissions.ts'
import { viewContextOf } from '../../../http/view-context.ts'

export function friendsAnswersRoutes(app: App): void {
  listRoute(app, '/api/questions/:id/friends_answers/', {
    summary: "Your friends' public answers to a question",
    description: 'Accepted friendships in either direction; private answers are never shown. Newest answer first.',
    params: IdParams,
    querystring: FriendAnswersQuery,
    item: FriendAnswer,
    config: {
      access: 'signed-in',
      resource: { name: 'Question Friends Answers', description: "The caller's friends' public answers to one question." },
    },
    rows: async (request, list) => {
      const caller = signedIn(request)
      if (!(await visibleQuestion(app.db, caller, request.params.id))) throw NotFound()
      return friendsAnswersPage(app.db, caller.id, request.params.id, list)
    },
    items: async (rows, request) => {
      const users = await loadFullUsers(
        viewContextOf(app, request),
        rows.map((row) => row.user_id),
      )
      return rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        object_id: row.object_id,
        value: row.value,
        skipped: row.skipped,
        user: toReducedUser(users.get(row.user_id)!),
        created_at: iso(row.created_at),
        modified_at: iso(row.modified_at),
      }))
    },
  })
}
