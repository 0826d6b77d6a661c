import type { App } from '../../http/app-type.ts'

/** following_users, following_tags and the tags' follow and unfollow actions. */
export function followingRoutes(app: App): void {
  void app
}
