import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { questionCounters } from './question-counters.repository.ts'

/**
 * Deletes an unanswered question (the caller has locked it and checked) with everything hanging off it,
 * and takes back what it added to counters: its author's question, its tags and area, the collections
 * listing it, and the comments and comment votes that go with it. The comments are locked first so no
 * comment vote slips in between counting and deleting.
 */
export async function removeQuestion(
  trx: Kysely<Database>,
  question: { id: number; user_id: number; geo_id: number | null },
): Promise<void> {
  const counters = questionCounters(trx)
  await trx.selectFrom('comments').select('id').where('question_id', '=', question.id).forUpdate().execute()
  const [commenters, commentVoters, collections, tags] = await Promise.all([
    trx
      .selectFrom('comments')
      .select(['user_id', (eb) => eb.fn.countAll<string>().as('n')])
      .where('question_id', '=', question.id)
      .groupBy('user_id')
      .execute(),
    trx
      .selectFrom('comment_votes')
      .innerJoin('comments', 'comments.id', 'comment_votes.comment_id')
      .select([
        'comment_votes.user_id',
        (eb) => eb.fn.countAll<string>().as('n'),
        sql<string>`count(*) FILTER (WHERE NOT comment_votes.private)`.as('public_n'),
      ])
      .where('comments.question_id', '=', question.id)
      .where('comment_votes.active', '=', true)
      .groupBy('comment_votes.user_id')
      .execute(),
    trx.selectFrom('question_collection_items').select('parent_id').where('question_id', '=', question.id).execute(),
    counters.carriedTags(question.id),
  ])
  await trx.deleteFrom('questions').where('id', '=', question.id).execute()

  // Users before tags, each kind in id order: the lock order of answering transactions.
  const users = [...new Set([question.user_id, ...commenters.map((row) => row.user_id), ...commentVoters.map((row) => row.user_id)])]
  await trx.selectFrom('users').select('id').where('id', 'in', users).orderBy('id').forNoKeyUpdate().execute()
  await counters.addAuthorQuestions(question.user_id, -1)
  await subtractPerUser(trx, 'count_comments', commenters)
  await subtractPerUser(trx, 'count_comment_votes', commentVoters)
  await subtractPerUser(
    trx,
    'public_count_comment_votes',
    commentVoters.map((row) => ({ user_id: row.user_id, n: row.public_n })),
  )
  await counters.retag(question.id, tags, new Set())
  await counters.moveArea(question.geo_id, null)
  await counters.addCollectionQuestions(
    collections.map((row) => row.parent_id),
    -1,
  )
}

async function subtractPerUser(
  trx: Kysely<Database>,
  counter: 'count_comments' | 'count_comment_votes' | 'public_count_comment_votes',
  rows: { user_id: number; n: string | number }[],
) {
  if (rows.length === 0) return
  const ids = rows.map((row) => row.user_id)
  const amounts = rows.map((row) => Number(row.n))
  await sql`UPDATE users u SET ${sql.ref(counter)} = u.${sql.ref(counter)} - d.n
    FROM unnest(${ids}::int4[], ${amounts}::int4[]) AS d(id, n) WHERE u.id = d.id`.execute(trx)
}
