import type { App } from '../../http/app-type.ts'

/** Breakdowns of answers and of people by age, gender and area (question_demographics, users/demographics, question_geographics). */
export function demographicsRoutes(app: App): void {
  void app
}
