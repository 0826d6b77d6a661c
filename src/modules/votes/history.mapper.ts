import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { HistoryRow } from './history.repository.ts'
import type { HistoryItem, HistorySimpleItem } from './votes.schemas.ts'

export function toHistorySimpleItem(row: HistoryRow): HistorySimpleItem {
  return {
    object_id: row.question_id,
    choice: row.choice_id,
    value: row.value,
    skipped: row.skipped,
    private: row.private,
    current: row.current,
    vote: row.vote_id,
    answered_at: iso(row.answered_at),
    replaced_at: isoOrNull(row.replaced_at),
  }
}

export interface QuestionSummaryRow {
  id: number
  question: string
  slug: string
  subtype: string
}

export function toHistoryItem(row: HistoryRow, question: QuestionSummaryRow, choiceText: string | null, urls: UrlBuilder): HistoryItem {
  return {
    ...toHistorySimpleItem(row),
    importance: row.importance,
    question: {
      id: question.id,
      url: urls.detail('questions', question.id),
      question: question.question,
      slug: question.slug,
      subtype: question.subtype,
    },
    choice_text: choiceText,
  }
}
