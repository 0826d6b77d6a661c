import { sql, type Kysely } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { orderingFieldsOf, orderingTerms } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'

const FRIEND_ANSWER_ORDERING = orderingFieldsOf(['created_at', 'modified_at', 'value'], 'answers')
/** Likert and choice answers have ids of their own tables: together they order by kind, then id. */
const FRIEND_ANSWER_TIE_BREAK = sql`(answers.kind, answers.id)`

/** A page of the public current answers to one question by the user's accepted friends; newest answer first by default. */
export async function friendsAnswersPage(
  db: Kysely<Database>,
  userId: number,
  questionId: number,
  list: ListRequest,
): Promise<RowsPage<FriendAnswerRow>> {
  const ordering = orderingTerms(list.ordering, FRIEND_ANSWER_ORDERING, ['-modified_at'], FRIEND_ANSWER_TIE_BREAK)
  return pageOfRows<FriendAnswerRow>(list, friendsAnswers(db, userId, questionId), (q) => q.selectAll('answers'), ordering)
}

/** Public current answers to one question by the user's accepted friends, in either direction of the friendship. */
function friendsAnswers(db: Kysely<Database>, userId: number, questionId: number) {
  const friends = db
    .selectFrom('friendships')
    .select('friend_id as id')
    .where('user_id', '=', userId)
    .where('accepted_at', 'is not', null)
    .union(db.selectFrom('friendships').select('user_id as id').where('friend_id', '=', userId).where('accepted_at', 'is not', null))
  const likert = db
    .selectFrom('question_votes')
    .select([
      'id',
      'user_id',
      'question_id as object_id',
      'value',
      'skipped',
      'created_at',
      'modified_at',
      sql<'likert' | 'choice'>`'likert'`.as('kind'),
    ])
    .where('question_id', '=', questionId)
    .where('private', '=', false)
    .where('user_id', 'in', friends)
  const choices = db
    .selectFrom('question_choice_votes')
    .select([
      'id',
      'user_id',
      'choice_id as object_id',
      'value',
      'skipped',
      'created_at',
      'modified_at',
      sql<'likert' | 'choice'>`'choice'`.as('kind'),
    ])
    .where('question_id', '=', questionId)
    .where('private', '=', false)
    .where('user_id', 'in', friends)
  return db.selectFrom(likert.unionAll(choices).as('answers'))
}

export type FriendAnswerRow = {
  id: number
  user_id: number
  object_id: number
  value: number | null
  skipped: boolean
  created_at: Date
  modified_at: Date
  kind: 'likert' | 'choice'
}
