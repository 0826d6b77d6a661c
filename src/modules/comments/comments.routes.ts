import type { App } from '../../http/app-type.ts'

/** comments, comment_votes, vote_comments, comment reports and moderation. */
export function commentRoutes(app: App): void {
  void app
}
