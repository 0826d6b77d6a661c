import type { App } from '../../http/app-type.ts'
import { readErrors } from '../../http/schemas.ts'
import { CompareQuestionsQuery, QuestionComparison } from './compare-questions.schemas.ts'
import { compareQuestions } from './compare-questions.service.ts'

/** How the answers to two questions relate (compare_questions). */
export function compareQuestionsRoutes(app: App): void {
  app.get('/api/compare_questions/', {
    schema: {
      summary: 'Cross-tabulate the answers of two questions, with their rank correlation',
      description:
        "Over the people with a current, not skipped answer to both questions: the table of their answers (rows questiona's " +
        "levels 1..5 or choices, columns questionb's), Kendall's tau-b with its two-sided p-value for two likert questions " +
        "(null with a reason when either is multiple choice), and Cramér's V for any two. Pairs with a private answer count " +
        'once the table holds MIN_CELL_SIZE of them; a table of fewer respondents publishes nothing but its categories; cells ' +
        'and totals of fewer than MIN_CELL_SIZE are left out, with secondary suppression. ' +
        'The same question twice answers 400; an unknown question or one the caller may not see answers 404. ' +
        'See docs/statistics.md, "Comparing two questions".',
      querystring: CompareQuestionsQuery,
      response: { 200: QuestionComparison, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Compare Questions', description: 'How the answers to two questions relate.' },
    },
    handler: async (request) =>
      compareQuestions(app.db, request.caller, request.query.questiona, request.query.questionb, app.config.minCellSize),
  })
}
