import type { App } from '../../http/app-type.ts'

/** question_votes, question_votes_light, question_choice_votes, question_choice_votes_light, question_tag_votes, question_history and question_history_simple. */
export function voteRoutes(app: App): void {
  void app
}
