import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'

/** A read scenario: one GET, as an anonymous caller or with a user's token. */
export interface ReadScenario {
  name: string
  path: string
  headers: Record<string, string>
  signedIn: boolean
}

/** The people and objects the scenarios read, picked from the seeded data (the largest ones, as population does). */
export interface Picks {
  heavyUser: { id: number; answers: number }
  newUser: { id: number }
  openQuestions: number
  largestQuestion: { id: number; answers: number }
  largestCollection: { id: number; questions: number }
}

export const TOKEN_NAME = 'bench-load'

export async function pick(db: Kysely<Database>): Promise<Picks> {
  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows[0]
  const heavyUser = await one<{ id: number; answers: number }>(sql`
    SELECT user_id AS id, count(*)::int AS answers FROM question_votes GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 1`)
  // A person with no answer of either kind: next_question_light's cheapest signed-in case.
  const newUser = await one<{ id: number }>(sql`
    SELECT u.id FROM users u WHERE u.is_active AND NOT u.is_deleted
      AND NOT EXISTS (SELECT 1 FROM question_votes v WHERE v.user_id = u.id)
      AND NOT EXISTS (SELECT 1 FROM question_choice_votes v WHERE v.user_id = u.id)
    ORDER BY u.id LIMIT 1`)
  const open = await one<{ count: number }>(sql`
    SELECT count(*)::int AS count FROM questions WHERE publish AND (start_at IS NULL OR start_at <= now()) AND (end_at IS NULL OR end_at > now())`)
  const largestQuestion = await one<{ id: number; answers: number }>(sql`
    SELECT question_id AS id, count(*)::int AS answers FROM question_votes GROUP BY question_id ORDER BY count(*) DESC, question_id LIMIT 1`)
  const largestCollection = await one<{ id: number; questions: number }>(sql`
    SELECT parent_id AS id, count(*)::int AS questions FROM question_collection_items WHERE type = 'Q'
    GROUP BY parent_id ORDER BY count(*) DESC, parent_id LIMIT 1`)
  if (!heavyUser || !newUser || !largestQuestion || !largestCollection)
    throw new Error('the bench database lacks users, answers or collections')
  return { heavyUser, newUser, openQuestions: open.count, largestQuestion, largestCollection }
}

/** A token for each user (earlier runs' tokens removed first, so the table does not grow run after run). */
export async function tokensFor(db: Kysely<Database>, userIds: number[]): Promise<string[]> {
  await db.deleteFrom('auth_tokens').where('name', '=', TOKEN_NAME).execute()
  const tokens = userIds.map(() => newToken())
  if (userIds.length > 0)
    await db
      .insertInto('auth_tokens')
      .values(userIds.map((user_id, i) => ({ user_id, key_hash: hashSecret(tokens[i]), name: TOKEN_NAME })))
      .execute()
  return tokens
}

export function readScenarios(picks: Picks, heavyToken: string, newToken: string): ReadScenario[] {
  const anonymous = (name: string, path: string): ReadScenario => ({ name, path, headers: {}, signedIn: false })
  const signedIn = (name: string, path: string, token: string): ReadScenario => ({
    name,
    path,
    headers: { authorization: `Token ${token}` },
    signedIn: true,
  })
  return [
    anonymous('questions 10 anonymous', '/api/questions/?page_size=10'),
    signedIn('questions 10 signed in', '/api/questions/?page_size=10', heavyToken),
    anonymous('questions 100 anonymous', '/api/questions/?page_size=100'),
    signedIn('questions 100 signed in', '/api/questions/?page_size=100', heavyToken),
    anonymous('question detail', `/api/questions/${picks.largestQuestion.id}/`),
    signedIn('next_question_light new user', '/api/next_question_light/', newToken),
    signedIn('next_question_light heavy user', '/api/next_question_light/', heavyToken),
    anonymous('census_data by age_30', '/api/census_data/?ordering=-age_30'),
    anonymous('user_politician', '/api/user_politician/'),
    anonymous('question_demographics', `/api/question_demographics/?question=${picks.largestQuestion.id}`),
    anonymous('survey_results', `/api/survey_results/?collection=${picks.largestCollection.id}`),
  ]
}
