import type { App } from '../../http/app-type.ts'

/** How the answers to two questions relate (compare_questions). */
export function compareQuestionsRoutes(app: App): void {
  void app
}
