import type { App } from '../../http/app-type.ts'

/** groups (join), group_memberships, group_invites, group_join_requests and group_question_connections. */
export function groupRoutes(app: App): void {
  void app
}
