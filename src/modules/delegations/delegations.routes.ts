import type { App } from '../../http/app-type.ts'
import { questionDelegationRoutes } from './question-delegations.routes.ts'
import { representationRoutes } from './representation.routes.ts'
import { tagDelegationRoutes } from './tag-delegations.routes.ts'

/** tag_delegations, question_delegation and a question's representation for the caller. */
export function delegationRoutes(app: App): void {
  tagDelegationRoutes(app)
  questionDelegationRoutes(app)
  representationRoutes(app)
}
