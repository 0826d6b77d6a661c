import type { App } from '../../http/app-type.ts'

/** creating, editing, publishing and deleting questions; question_links, question_tags, question_question_connections and their votes. */
export function questionWriteRoutes(app: App): void {
  void app
}
