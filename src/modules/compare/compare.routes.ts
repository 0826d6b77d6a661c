import type { App } from '../../http/app-type.ts'

/** Comparisons between people (compare_users, compare_n_users_quick, user_compare, compare_users_quick, users_fd_compare). */
export function compareRoutes(app: App): void {
  void app
}
