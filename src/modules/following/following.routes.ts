import type { App } from '../../http/app-type.ts'
import { followingTagRoutes } from './following-tags.routes.ts'
import { followingUserRoutes } from './following-users.routes.ts'

/** following_users, following_tags and the tags' follow and unfollow actions. */
export function followingRoutes(app: App): void {
  followingUserRoutes(app)
  followingTagRoutes(app)
}
