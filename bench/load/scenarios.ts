import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'

/** A read scenario: one GET, as the clients send it (the application key, a person's token) or keyless. */
export interface ReadScenario {
  name: string
  path: string
  headers: Record<string, string>
  signedIn: boolean
  /** Whether the request carries the application key (every client's does; keyless rows are reported apart). */
  appKey: boolean
  /** The ratio to its limit the service should reach, where there is a target. */
  target?: number
  /** The service's peak resident memory during the run should stay under this (MiB), where there is a target. */
  rssTargetMiB?: number
  /** Each request from the next of these people (their tokens), instead of one fixed token. */
  crowd?: string[]
}

/** The people and objects the scenarios read, picked from the seeded data (the largest ones, as population does). */
export interface Picks {
  /** The person with the most answers (likert and choice). */
  heavyUser: { id: number; answers: number }
  /** The person whose answers (likert and choice) number closest to 60. */
  sixtyUser: { id: number; answers: number }
  newUser: { id: number }
  openQuestions: number
  largestQuestion: { id: number; answers: number }
  largestCollection: { id: number; questions: number }
}

export const TOKEN_NAME = 'bench-load'

export async function pick(db: Kysely<Database>): Promise<Picks> {
  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows[0]
  // Answers of both kinds (likert and choice) by people who can sign in: the heaviest voter and the 60-answer person.
  const answerCounts = sql`
    SELECT a.user_id AS id, count(*)::int AS answers
    FROM (SELECT user_id FROM question_votes UNION ALL SELECT user_id FROM question_choice_votes) AS a
    JOIN users u ON u.id = a.user_id AND u.is_active AND NOT u.is_deleted
    GROUP BY a.user_id`
  const heavyUser = await one<{ id: number; answers: number }>(sql`
    SELECT * FROM (${answerCounts}) AS c ORDER BY answers DESC, id LIMIT 1`)
  // A person with no answer of either kind: next_question_light's cheapest signed-in case.
  const newUser = await one<{ id: number }>(sql`
    SELECT u.id FROM users u WHERE u.is_active AND NOT u.is_deleted
      AND NOT EXISTS (SELECT 1 FROM question_votes v WHERE v.user_id = u.id)
      AND NOT EXISTS (SELECT 1 FROM question_choice_votes v WHERE v.user_id = u.id)
    ORDER BY u.id LIMIT 1`)
  const sixtyUser = await one<{ id: number; answers: number }>(sql`
    SELECT * FROM (${answerCounts}) AS c ORDER BY abs(answers - 60), id LIMIT 1`)
  const open = await one<{ count: number }>(sql`
    SELECT count(*)::int AS count FROM questions WHERE publish AND (start_at IS NULL OR start_at <= now()) AND (end_at IS NULL OR end_at > now())`)
  // The question with the most answers of either kind (a likert rating or a choice).
  const largestQuestion = await one<{ id: number; answers: number }>(sql`
    SELECT question_id AS id, count(*)::int AS answers
    FROM (SELECT question_id FROM question_votes UNION ALL SELECT question_id FROM question_choice_votes) AS a
    GROUP BY question_id ORDER BY count(*) DESC, question_id LIMIT 1`)
  const largestCollection = await one<{ id: number; questions: number }>(sql`
    SELECT parent_id AS id, count(*)::int AS questions FROM question_collection_items WHERE type = 'Q'
    GROUP BY parent_id ORDER BY count(*) DESC, parent_id LIMIT 1`)
  if (!heavyUser || !sixtyUser || !newUser || !largestQuestion || !largestCollection)
    throw new Error('the bench database lacks users, answers or collections')
  return { heavyUser, sixtyUser, newUser, openQuestions: open.count, largestQuestion, largestCollection }
}

/** A token for each user (earlier runs' tokens removed first, so the table does not grow run after run), in one statement. */
export async function tokensFor(db: Kysely<Database>, userIds: number[]): Promise<string[]> {
  await db.deleteFrom('auth_tokens').where('name', '=', TOKEN_NAME).execute()
  const tokens = userIds.map(() => newToken())
  if (userIds.length > 0)
    await sql`INSERT INTO auth_tokens (user_id, key_hash, name)
      SELECT * FROM unnest(${userIds}::int[], ${tokens.map(hashSecret)}::text[], ${userIds.map(() => TOKEN_NAME)}::text[])`.execute(db)
  return tokens
}

/**
 * People who have answered nothing, made for one run of the survey surge with a token each (one statement each):
 * every run then walks the whole collection, however often the database was used before. They stay in it.
 */
export async function newPeople(db: Kysely<Database>, count: number, label: string): Promise<{ ids: number[]; tokens: string[] }> {
  const { rows } = await sql<{ id: number }>`
    INSERT INTO users (username, email)
    SELECT ${label} || '-' || n, ${label} || '-' || n || '@example.net' FROM generate_series(1, ${count}::int) AS n
    RETURNING id`.execute(db)
  const ids = rows.map((row) => row.id)
  const tokens = ids.map(() => newToken())
  await sql`INSERT INTO auth_tokens (user_id, key_hash, name)
    SELECT * FROM unnest(${ids}::int[], ${tokens.map(hashSecret)}::text[], ${ids.map(() => TOKEN_NAME)}::text[])`.execute(db)
  return { ids, tokens }
}

/** The application key the scenarios send (earlier runs' removed first). */
export async function benchAppKey(db: Kysely<Database>): Promise<string> {
  await db.deleteFrom('app_keys').where('name', '=', TOKEN_NAME).execute()
  return (await appKeysRepository(db).create(TOKEN_NAME)).key
}

/** The active people the signed-in crowd is made of: up to `most`, in id order. */
export async function crowdOf(db: Kysely<Database>, most: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    SELECT id FROM users WHERE is_active AND NOT is_deleted ORDER BY id LIMIT ${most}`.execute(db)
  return rows.map((row) => row.id)
}

/** The targets the reads are held to, as ratios to their limits, and the service's memory after the crowd. */
export const TARGETS = { keyedAnonymous: 0.5, signedIn: 0.25, nextSixty: 0.1, nextHeaviest: 0.05, crowdRssMiB: 512 } as const

export interface ScenarioTokens {
  heavy: string
  sixty: string
  fresh: string
  crowd: string[]
}

export function readScenarios(picks: Picks, key: string, tokens: ScenarioTokens): ReadScenario[] {
  const keyed = (path: string) => `${path}${path.includes('?') ? '&' : '?'}AppAuthorization=${key}`
  const anonymous = (name: string, path: string, target?: number): ReadScenario => ({
    name,
    path: keyed(path),
    headers: {},
    signedIn: false,
    appKey: true,
    target,
  })
  const keyless = (name: string, path: string): ReadScenario => ({ name, path, headers: {}, signedIn: false, appKey: false })
  const signedIn = (name: string, path: string, token: string, target?: number): ReadScenario => ({
    name,
    path: keyed(path),
    headers: { authorization: `Token ${token}` },
    signedIn: true,
    appKey: true,
    target,
  })
  const detail = `/api/questions/${picks.largestQuestion.id}/`
  const { keyedAnonymous, signedIn: signedInTarget, nextSixty, nextHeaviest } = TARGETS
  return [
    anonymous('questions 10 anonymous', '/api/questions/?page_size=10', keyedAnonymous),
    signedIn('questions 10 signed in (60 answers)', '/api/questions/?page_size=10', tokens.sixty, signedInTarget),
    signedIn('questions 10 signed in (heaviest voter)', '/api/questions/?page_size=10', tokens.heavy, signedInTarget),
    keyless('questions 10 anonymous, no key', '/api/questions/?page_size=10'),
    anonymous('questions 100 anonymous', '/api/questions/?page_size=100', keyedAnonymous),
    signedIn('questions 100 signed in (60 answers)', '/api/questions/?page_size=100', tokens.sixty, signedInTarget),
    signedIn('questions 100 signed in (heaviest voter)', '/api/questions/?page_size=100', tokens.heavy, signedInTarget),
    keyless('questions 100 anonymous, no key', '/api/questions/?page_size=100'),
    anonymous('question detail anonymous', detail, keyedAnonymous),
    signedIn('question detail signed in (60 answers)', detail, tokens.sixty, signedInTarget),
    keyless('question detail anonymous, no key', detail),
    signedIn('next_question_light (60 answers)', '/api/next_question_light/', tokens.sixty, nextSixty),
    signedIn('next_question_light (heaviest voter)', '/api/next_question_light/', tokens.heavy, nextHeaviest),
    signedIn('next_question_light new user', '/api/next_question_light/', tokens.fresh),
    anonymous('census_data by age_30', '/api/census_data/?ordering=-age_30'),
    anonymous('user_politician', '/api/user_politician/'),
    anonymous('question_demographics', `/api/question_demographics/?question=${picks.largestQuestion.id}`),
    anonymous('survey_results', `/api/survey_results/?collection=${picks.largestCollection.id}`),
    // Last of the reads: its peak memory is the service's after every person of the crowd was seen.
    ...(tokens.crowd.length === 0
      ? []
      : [
          {
            ...signedIn(`signed-in crowd (${tokens.crowd.length} people)`, '/api/questions/?page_size=10', tokens.crowd[0]!),
            crowd: tokens.crowd,
            rssTargetMiB: TARGETS.crowdRssMiB,
          },
        ]),
  ]
}
