import type { App } from '../../http/app-type.ts'
import { choiceVoteRoutes } from './choice-votes.routes.ts'
import { historyRoutes } from './history.routes.ts'
import { questionVoteRoutes } from './question-votes.routes.ts'
import { tagVoteRoutes } from './tag-votes.routes.ts'

/** question_votes, question_votes_light, question_choice_votes, question_choice_votes_light, question_tag_votes, question_history and question_history_simple. */
export function voteRoutes(app: App): void {
  questionVoteRoutes(app)
  choiceVoteRoutes(app)
  tagVoteRoutes(app)
  historyRoutes(app)
}
