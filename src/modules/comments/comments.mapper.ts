import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { VoteSummary } from '../questions/questions.schemas.ts'
import { photoUrl } from '../users/users.mapper.ts'
import type { UserRow } from '../users/users.repository.ts'
import type { AuthorAnswers, ListedCommentRow, OwnVoteRow } from './comments.repository.ts'
import type { Comment, CommentAuthor, OwnCommentVote, Subtype } from './comments.schemas.ts'

export function toCommentAuthor(row: UserRow, urls: UrlBuilder, defaultAvatar: string | null): CommentAuthor {
  return {
    id: row.id,
    url: urls.detail('users', row.id),
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    photo: photoUrl(row, urls, defaultAvatar),
  }
}

export const answerKey = (userId: number, questionId: number) => `${userId}:${questionId}`

/** Answers grouped by author and question, in the form questions give my_vote: likert first, then choices. */
export function answersByAuthor(answers: AuthorAnswers): Map<string, VoteSummary[]> {
  const out = new Map<string, VoteSummary[]>()
  const add = (key: string, vote: VoteSummary) => out.set(key, [...(out.get(key) ?? []), vote])
  for (const row of answers.likert) {
    add(answerKey(row.user_id, row.question_id), {
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
    add(answerKey(row.user_id, row.question_id), {
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

export function toOwnCommentVote(row: OwnVoteRow): OwnCommentVote {
  return {
    id: row.id,
    object_id: row.comment_id,
    value: row.value,
    private: row.private,
    active: row.active,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

export interface CommentRelations {
  author: CommentAuthor
  vote: VoteSummary[]
  myVote: OwnCommentVote[]
  /** Only staff see report counts. */
  showReports: boolean
}

/** The row's tallies are the published ones (comments.repository.ts), the same for everyone. */
export function toComment(row: ListedCommentRow, related: CommentRelations, urls: UrlBuilder): Comment {
  return {
    id: row.id,
    url: urls.detail('comments', row.id),
    text: row.text,
    subtype: row.subtype as Subtype,
    parent: row.parent_id,
    question: row.question_id,
    question_info: {
      id: row.question_id,
      url: urls.detail('questions', row.question_id),
      question: row.question_text,
      slug: row.question_slug,
    },
    user: related.author,
    vote: related.vote,
    my_vote: related.myVote,
    direct_maximum: row.direct_maximum,
    direct_minimum: row.direct_minimum,
    is_hidden: row.is_hidden,
    report_count: related.showReports ? row.report_count : null,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
