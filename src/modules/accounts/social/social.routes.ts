import type { App } from '../../../http/app-type.ts'

/** social1..social4, social_auth, token-only-social-auth, session-social-auth and /auth-yeti/. */
export function socialRoutes(app: App): void {
  void app
}
