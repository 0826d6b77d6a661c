import { iso, isoOrNull } from '../../core/time.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Area } from '../areas/areas.schemas.ts'
import { toTagInfo, type TagRow } from '../tags/tags.repository.ts'
import type { FullUser } from '../users/users.schemas.ts'
import type { Answers, ChoiceRow, QuestionRow, QuestionTagRow } from './questions.repository.ts'
import type { Choice, ChoiceListItem, Question, QuestionTag, VoteSummary } from './questions.schemas.ts'

const DIRECT = statisticsColumns('direct')
const LIQUID = statisticsColumns('liquid')

function pick(row: Record<string, unknown>, names: string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, row[name] as number]))
}

export function toQuestionTag(row: QuestionTagRow): QuestionTag {
  return {
    id: row.id,
    tag: {
      id: row.tag_id,
      text: row.text,
      followers_count: row.followers_count,
      questions_count: row.questions_count,
      votes_count: row.votes_count,
    },
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    ...pick(row, DIRECT),
  } as QuestionTag
}

function choiceCore(row: ChoiceRow) {
  return {
    id: row.id,
    text: row.text,
    store_number: row.store_number,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    ...pick(row, DIRECT),
    ...pick(row, LIQUID),
    polarisation: row.polarisation,
  }
}

export function toChoice(row: ChoiceRow, urls: UrlBuilder): Choice {
  return { ...choiceCore(row), url: urls.detail('question_choices', row.id) } as Choice
}

export function toChoiceListItem(row: ChoiceRow, urls: UrlBuilder): ChoiceListItem {
  return { ...choiceCore(row), question: urls.detail('questions', row.question_id) } as ChoiceListItem
}

/** One user's answers, grouped by question, in the my_vote / their_vote form. */
export function votesByQuestion(answers: Answers): Map<number, VoteSummary[]> {
  const out = new Map<number, VoteSummary[]>()
  const add = (questionId: number, vote: VoteSummary) => out.set(questionId, [...(out.get(questionId) ?? []), vote])
  for (const row of answers.likert) {
    add(row.question_id, {
      id: row.id,
      object_id: row.question_id,
      value: row.value,
      skipped: row.skipped,
      private: row.private,
      created_at: iso(row.created_at),
      modified_at: iso(row.modified_at),
    })
  }
  for (const row of answers.choices) {
    add(row.question_id, {
      id: row.id,
      object_id: row.choice_id,
      value: row.value,
      skipped: row.skipped,
      private: row.private,
      created_at: iso(row.created_at),
      modified_at: iso(row.modified_at),
    })
  }
  return out
}

export interface QuestionRelations {
  user: FullUser
  tags: QuestionTag[]
  choices: Choice[]
  links: { id: number; link: string; title: string }[]
  topic: TagRow | undefined
  groupName: string | null
  geo: Area | undefined
  myVote: VoteSummary[]
  theirVote: VoteSummary[]
  myImportance: { object_id: number; value: number; modified_at: string }[]
}

export function toQuestion(row: QuestionRow, related: QuestionRelations, urls: UrlBuilder): Question {
  return {
    id: row.id,
    url: urls.detail('questions', row.id),
    question: row.question,
    slug: row.slug,
    my_vote: related.myVote,
    their_vote: related.theirVote,
    my_importance: related.myImportance,
    user: related.user,
    tags: related.tags,
    choices: related.choices,
    description: row.description,
    perodic_repeat_interval: row.perodic_repeat_interval,
    ogImage: row.og_image,
    subtype: row.subtype,
    topic: row.topic_id,
    topic_info: related.topic ? toTagInfo(related.topic) : null,
    group: row.group_id,
    group_url: row.group_id === null ? null : urls.detail('groups', row.group_id),
    group_name: related.groupName,
    geo: row.geo_id,
    geo_url: row.geo_id === null ? null : urls.detail('geos', row.geo_id),
    geo_info: related.geo ?? null,
    links: related.links,
    start_at: isoOrNull(row.start_at),
    end_at: isoOrNull(row.end_at),
    publish: row.publish,
    count_comments: row.count_comments,
    count_comments_suggestion: row.count_comments_suggestion,
    count_comments_reason: row.count_comments_reason,
    count_comments_info: row.count_comments_info,
    ...pick(row as unknown as Record<string, unknown>, DIRECT),
    ...pick(row as unknown as Record<string, unknown>, LIQUID),
    polarisation: row.polarisation,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  } as Question
}
