import type { App } from '../../http/app-type.ts'

/** Results weighted to the census population (question_weighted_demographics). */
export function weightingRoutes(app: App): void {
  void app
}
