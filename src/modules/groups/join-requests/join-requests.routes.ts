import type { App } from '../../../http/app-type.ts'
import { pendingActionRoutes } from '../pending-actions.routes.ts'
import { joinRequestsRepository } from './join-requests.repository.ts'
import { PendingListQuery } from '../pending-actions.schemas.ts'
import { JoinRequest, JoinRequestCreate } from './join-requests.schemas.ts'
import { answerJoinRequest, createJoinRequest, joinRequestsFromRows } from './join-requests.service.ts'

/** group_join_requests: people ask to join, administrators accept or reject, the requester withdraws. */
export function joinRequestRoutes(app: App): void {
  pendingActionRoutes(app, {
    path: 'group_join_requests',
    name: 'Group Join Request',
    item: JoinRequest,
    list: {
      summary: 'Your join requests and those to the groups you administer',
      description: 'Requests to join groups that take them: yours, and those to the groups you administer. Ask with {group, message}.',
      querystring: PendingListQuery,
    },
    create: { summary: 'Ask to join a group that takes requests', body: JoinRequestCreate, run: createJoinRequest },
    detail: {
      summary: 'One join request',
      description: "A request to join a group, seen by the requester and the group's administrators.",
    },
    repository: joinRequestsRepository,
    render: joinRequestsFromRows,
    actions: [
      { answer: 'accept', party: 'administrator', summary: 'Accept a request (administrators): the requester becomes a member' },
      { answer: 'reject', party: 'administrator', summary: 'Reject a request (administrators)' },
      { answer: 'withdraw', party: 'person', summary: 'Withdraw your request' },
    ],
    answer: (db, id, answer, caller) => answerJoinRequest(db, id, answer, caller.id),
  })
}
