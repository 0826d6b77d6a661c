import { Type, type Static } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { Nullable } from '../../http/schemas.ts'

/** The shapes of compare_questions (docs/statistics.md, "Comparing two questions"). */

const questionId = (which: string) => Type.Integer({ minimum: 0, maximum: INT4_MAX, description: which })

export const CompareQuestionsQuery = Type.Object({
  questiona: questionId('the question whose answers are the rows'),
  questionb: questionId('the question whose answers are the columns; another question than questiona'),
})
export type CompareQuestionsQuery = Static<typeof CompareQuestionsQuery>

const ComparedQuestion = Type.Object({
  id: Type.Integer(),
  question: Type.String({ description: "the question's text, for the axis title" }),
  subtype: Type.String({ description: '`likert` (ordered levels 1..5) or `mcq` (unordered choices)' }),
})

const Category = Type.Object({
  value: Nullable(Type.Integer({ minimum: 1, maximum: 5, description: 'the rating 1..5 (likert); null for a choice' })),
  choice: Nullable(Type.Integer({ description: 'the choice id (multiple choice); null for a rating' })),
  label: Type.String({ description: 'the level name (minimum, low, medium, high, maximum) or the choice text' }),
})

const Count = Type.Integer({ minimum: 0 })

export const RankCorrelation = Type.Object(
  {
    method: Type.Literal('kendall_tau_b'),
    estimate: Nullable(Type.Number({ minimum: -1, maximum: 1, description: "Kendall's tau-b; null with `reason`" })),
    z: Nullable(Type.Number({ description: 'S / √Var(S), the variance corrected for ties; null with the estimate' })),
    p_value: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'two-sided, normal approximation; null with z' })),
    concordant_pairs: Count,
    discordant_pairs: Count,
    reason: Nullable(Type.String({ description: 'why the estimate is null; null when there is one' })),
  },
  { description: 'rank correlation of two likert questions; its estimate is null for multiple choice (unordered)' },
)

export const Association = Type.Object(
  {
    method: Type.Literal('cramers_v'),
    estimate: Nullable(Type.Number({ minimum: 0, maximum: 1, description: "Cramér's V; null with `reason`" })),
    chi_square: Nullable(Type.Number({ minimum: 0, description: "Pearson's χ² over the categories with people" })),
    df: Nullable(Type.Integer({ minimum: 1 })),
    reason: Nullable(Type.String({ description: 'why the estimate is null; null when there is one' })),
  },
  { description: 'association with the categories taken as unordered, for any two questions' },
)

const Cell = Type.Object({
  row: Type.Integer({ minimum: 0, description: 'index in `rows`' }),
  column: Type.Integer({ minimum: 0, description: 'index in `columns`' }),
  count: Type.Integer({ minimum: 1, description: 'respondents in that row and column' }),
})

const RowMargin = Type.Object({
  row: Type.Integer({ minimum: 0, description: 'index in `rows`' }),
  count: Type.Integer({ minimum: 1, description: 'respondents in that row' }),
})

const ColumnMargin = Type.Object({
  column: Type.Integer({ minimum: 0, description: 'index in `columns`' }),
  count: Type.Integer({ minimum: 1, description: 'respondents in that column' }),
})

export const QuestionComparison = Type.Object({
  questiona: ComparedQuestion,
  questionb: ComparedQuestion,
  respondents: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'people with a current, not skipped answer to both questions (private pairs counted once the table holds MIN_CELL_SIZE ' +
        'of them); left out, with every cell, margin and figure, below MIN_CELL_SIZE',
    }),
  ),
  rows: Type.Array(Category, { description: "questiona's categories, in order: levels 1..5, or every choice in its order" }),
  columns: Type.Array(Category, { description: "questionb's categories, in the same way" }),
  cells: Type.Array(Cell, {
    description:
      'the published cells, row by row; a cell not listed is empty or withheld (fewer than MIN_CELL_SIZE, or secondary suppression)',
  }),
  row_margins: Type.Array(RowMargin, { description: 'the published row totals; a row not listed is empty or withheld' }),
  column_margins: Type.Array(ColumnMargin, { description: 'the published column totals, in the same way' }),
  correlation: RankCorrelation,
  association: Association,
})
export type QuestionComparison = Static<typeof QuestionComparison>
