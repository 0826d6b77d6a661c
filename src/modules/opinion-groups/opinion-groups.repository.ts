import { sql, type Kysely } from 'kysely'
import { pendingDirectAnswers } from '../../db/answer-gate.ts'
import type { Database } from '../../db/database.ts'
import { copyIn } from '../../db/copy-in.ts'
import type { Db } from '../../db/types.ts'
import { IMPORT_ACCOUNT as POLIS_IMPORT_ACCOUNT } from '../polis-import/polis-import.repository.ts'
import { CollectedAnswers, type AnswerArrays, type ReadAnswers, type ScopeAnswers } from './collected-answers.ts'

/** The sets of questions opinion groups are found for: a collection's, a tag's, a group's. */
export type OpinionScope = 'collection' | 'tag' | 'group'

export interface ScopeQuestion {
  id: number
  question: string
  subtype: string
  /** Its current answers, skips left out, from the stored figures (which the write path keeps exact). */
  answers: number
}

export interface ScopeChoice {
  id: number
  question_id: number
  text: string
}

export type { ReadAnswers, ScopeAnswers }

/** Answers read by one statement, at most (about), before a scope is read in windows of accounts. */
export const ANSWERS_PER_READ = 500_000

/** A kept run's stamp: when it was computed and checked, and from what. */
export interface KeptRun {
  computed_at: Date
  checked_at: Date
  answers_counted: number
  signature: string
  answers_signature: string | null
}

export interface KeptModel {
  model: unknown
  published: unknown
  /** The fingerprint of the answers the published groups were computed from; null for a run kept before it. */
  published_input: string | null
  computed_at: Date
  answers_counted: number
}

export interface Place {
  group_label: number | null
  clustered: boolean
  x: number
  y: number
}

/** Questions anyone may see: opinion groups are the same for every caller, so they are made of public material. */
function scopeQuestionIds(db: Db, scope: OpinionScope, scopeId: number) {
  if (scope === 'collection')
    return db
      .selectFrom('question_collection_items')
      .select('question_id')
      .where('parent_id', '=', scopeId)
      .where('question_id', 'is not', null)
  if (scope === 'tag') return db.selectFrom('question_tags').select('question_id').where('tag_id', '=', scopeId)
  return db.selectFrom('questions').select('id as question_id').where('group_id', '=', scopeId)
}

/**
 * A collection imported from Pol.is (`civic-survey import-polis`): its statements kept out of the questions
 * (moderated out or meta: drafts nobody answers or sees but staff), and its last activity in Pol.is.
 */
export interface PolisCollection {
  hidden: number[]
  /** The latest of its comments and of its answers with a time from the export, before the import. */
  lastActivity: Date
}

export function opinionGroupsRepository(db: Kysely<Database>) {
  return {
    /**
     * The collection's Pol.is conversation, when the import's own account owns it (no password, no e-mail, as the
     * import requires); undefined otherwise. Answers written at the import's time, or later, are not Pol.is's.
     */
    async polisCollection(collectionId: number): Promise<PolisCollection | undefined> {
      const { rows } = await sql<{ hidden: number[] | null; last_activity: Date | null }>`
        SELECT (SELECT array_agg(q.id ORDER BY i."order", q.id) FROM question_collection_items i
                  JOIN questions q ON q.id = i.question_id
                  WHERE i.parent_id = c.id AND NOT q.publish AND q.subtype = 'likert') AS hidden,
               greatest(
                 (SELECT max(q.created_at) FROM question_collection_items i JOIN questions q ON q.id = i.question_id
                   WHERE i.parent_id = c.id),
                 (SELECT max(v.modified_at) FROM question_collection_items i JOIN question_votes v ON v.question_id = i.question_id
                   WHERE i.parent_id = c.id AND v.modified_at < c.created_at)) AS last_activity
        FROM question_collections c JOIN users u ON u.id = c.user_id
        WHERE c.id = ${collectionId} AND u.username = ${POLIS_IMPORT_ACCOUNT} AND u.password_hash IS NULL AND u.email IS NULL`.execute(db)
      const row = rows[0]
      if (!row || row.last_activity === null) return undefined
      return { hidden: row.hidden ?? [], lastActivity: new Date(row.last_activity) }
    },

    /** Whether the collection, tag or group exists. */
    async scopeExists(scope: OpinionScope, scopeId: number): Promise<boolean> {
      const table = scope === 'collection' ? 'question_collections' : scope === 'tag' ? 'tags' : 'groups'
      return (await db.selectFrom(table).select('id').where('id', '=', scopeId).executeTakeFirst()) !== undefined
    },

    /** The scope's published questions, by id, with the choices of its multiple-choice ones. */
    async questions(scope: OpinionScope, scopeId: number): Promise<{ questions: ScopeQuestion[]; choices: ScopeChoice[] }> {
      const questions = await db
        .selectFrom('questions')
        .select(['id', 'question', 'subtype'])
        .select(
          sql<number>`questions.direct_vote_count + COALESCE((
            SELECT sum(question_choices.direct_vote_count) FROM question_choices
            WHERE question_choices.question_id = questions.id), 0)::int + ${pendingDirectAnswers(sql`questions.id`, false)}::int`.as(
            'answers',
          ),
        )
        .where('id', 'in', scopeQuestionIds(db, scope, scopeId))
        .where('publish', '=', true)
        .orderBy('id')
        .execute()
      const mcq = questions.filter((q) => q.subtype === 'mcq').map((q) => q.id)
      const choices = mcq.length
        ? await db
            .selectFrom('question_choices')
            .select(['id', 'question_id', 'text'])
            .where('question_id', 'in', mcq)
            .orderBy('question_id')
            .orderBy('id')
            .execute()
        : []
      return { questions, choices }
    },

    /**
     * The answers of the questions as released (migration 038: private ones in batches): ratings of likert questions,
     * picks of multiple-choice ones, with whether each is private, in no particular order (the engine orders them). Columns come back as arrays, so a large scope costs
     * no object per answer, and from the questions' covering indexes alone (a skip is an answer without a value).
     * Up to `perRead` answers (`expected`, from the stored figures) it is one statement; a larger scope is read in
     * windows of account ids of about `perRead` answers each, so that no reply holds it all.
     */
    async answers(likert: number[], mcq: number[], expected: number, perRead = ANSWERS_PER_READ): Promise<ReadAnswers> {
      const read = async (from: number | null, to: number | null) => {
        const window = from === null ? sql`true` : sql`user_id BETWEEN ${from} AND ${to}`
        const { rows } = await sql<AnswerArrays>`
          SELECT count(*)::int AS count, string_agg(user_id::text, ',') AS accounts,
                 string_agg(question_id::text, ',') AS questions, string_agg(value::text, ',') AS vals,
                 string_agg(CASE WHEN private THEN '1' ELSE '0' END, '') AS private
          FROM (
            SELECT user_id, question_id, value, private FROM released_question_votes
            WHERE question_id = ANY(${likert}::int[]) AND value IS NOT NULL AND ${window}
            UNION ALL
            SELECT user_id, question_id, choice_id, private FROM released_choice_votes
            WHERE question_id = ANY(${mcq}::int[]) AND value IS NOT NULL AND ${window}
          ) AS answers`.execute(db)
        return rows[0]
      }
      const collected = new CollectedAnswers(expected)
      if (expected <= perRead) {
        collected.append(await read(null, null))
        return collected.answers()
      }
      const { rows } = await sql<{ first: number | null; last: number | null }>`
        SELECT min(id) AS first, max(id) AS last FROM users`.execute(db)
      const { first, last } = rows[0]
      if (first === null || last === null) return collected.answers()
      const width = Math.ceil((last - first + 1) / Math.ceil(expected / perRead))
      for (let from = first; from <= last; from += width) collected.append(await read(from, Math.min(from + width - 1, last)))
      return collected.answers()
    },

    /**
     * The current answers, as they are now, of the people with a change of a private answer still unreleased on
     * these questions (at most k-1 a question): the model sees them as released, their own place as they are.
     */
    async unreleasedAnswers(likert: number[], mcq: number[]): Promise<ScopeAnswers> {
      const { rows } = await sql<{ user_id: number; question_id: number; value: number; private: boolean }>`
        SELECT v.user_id, v.question_id, v.value, v.private FROM question_votes v
        JOIN unreleased_answers r ON r.question_id = v.question_id AND r.user_id = v.user_id
        WHERE v.question_id = ANY(${likert}::int[]) AND v.value IS NOT NULL
        UNION ALL
        SELECT v.user_id, v.question_id, v.choice_id, v.private FROM question_choice_votes v
        JOIN unreleased_answers r ON r.question_id = v.question_id AND r.user_id = v.user_id
        WHERE v.question_id = ANY(${mcq}::int[]) AND v.value IS NOT NULL`.execute(db)
      return {
        accountId: Int32Array.from(rows, (row) => row.user_id),
        questionId: Int32Array.from(rows, (row) => row.question_id),
        value: Int32Array.from(rows, (row) => row.value),
        private: Uint8Array.from(rows, (row) => (row.private ? 1 : 0)),
      }
    },

    /**
     * Two signatures of the answers (their number, ids and latest change). `published` decides that the kept groups
     * are stale: it covers the answers as released, public ones and the private ones only once `k` people hold one
     * (below that the model never sees them, so they must start no recompute). `answers` covers every answer: when only it moves,
     * the places of people the model leaves out are refreshed, for themselves alone.
     */
    async signature(likert: number[], mcq: number[], k: number): Promise<{ published: string; answers: string }> {
      const part = (likertTable: string, choiceTable: string) => sql`(
          SELECT id, user_id, modified_at, private FROM ${sql.table(likertTable)}
          WHERE question_id = ANY(${likert}::int[]) AND value IS NOT NULL
          UNION ALL
          SELECT id, user_id, modified_at, private FROM ${sql.table(choiceTable)}
          WHERE question_id = ANY(${mcq}::int[]) AND value IS NOT NULL)`
      const summary = sql`concat_ws(':', count(*) FILTER (WHERE NOT private), coalesce(sum(id) FILTER (WHERE NOT private), 0),
                 coalesce((max(modified_at) FILTER (WHERE NOT private))::text, '-')) AS open,
               count(DISTINCT user_id) FILTER (WHERE private)::int AS authors,
               concat_ws(':', count(*) FILTER (WHERE private), coalesce(sum(id) FILTER (WHERE private), 0),
                 coalesce((max(modified_at) FILTER (WHERE private))::text, '-')) AS hidden`
      // What the model may see: the answers as released (private ones in batches); and every answer as it is now.
      const { rows } = await sql<{ open: string; authors: number; hidden: string; now_open: string; now_hidden: string }>`
        SELECT r.open, r.authors, r.hidden, n.open AS now_open, n.hidden AS now_hidden
        FROM (SELECT ${summary} FROM ${part('released_question_votes', 'released_choice_votes')} AS answers) AS r,
             (SELECT ${summary} FROM ${part('question_votes', 'question_choice_votes')} AS answers) AS n`.execute(db)
      const { open, authors, hidden, now_open, now_hidden } = rows[0]
      const questions = `${likert.join(',')}|${mcq.join(',')}|k${k}`
      return { published: `${questions}|${open}|${authors >= k ? hidden : '-'}`, answers: `${questions}|${now_open}|${now_hidden}` }
    },

    async kept(scope: OpinionScope, scopeId: number): Promise<KeptRun | undefined> {
      return db
        .selectFrom('opinion_group_runs')
        .select(['computed_at', 'checked_at', 'answers_counted', 'signature', 'answers_signature'])
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .executeTakeFirst()
    },

    /** What the kept run publishes (without the model, which is megabytes on a large scope). */
    async published(
      scope: OpinionScope,
      scopeId: number,
    ): Promise<{ computed_at: Date; answers_counted: number; published: unknown } | undefined> {
      return db
        .selectFrom('opinion_group_runs')
        .select(['computed_at', 'answers_counted', 'published'])
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .executeTakeFirst()
    },

    /** The kept run's model, what it published and from what: the start of the next recompute. */
    async keptModel(scope: OpinionScope, scopeId: number): Promise<KeptModel | undefined> {
      return db
        .selectFrom('opinion_group_runs')
        .select(['model', 'published', 'published_input', 'computed_at', 'answers_counted'])
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .executeTakeFirst() as Promise<KeptModel | undefined>
    },

    /** A run found still current: checked now. */
    async markChecked(scope: OpinionScope, scopeId: number): Promise<void> {
      await db
        .updateTable('opinion_group_runs')
        .set({ checked_at: sql`now()` })
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .execute()
    },

    async place(scope: OpinionScope, scopeId: number, userId: number): Promise<Place | undefined> {
      return db
        .selectFrom('opinion_group_places')
        .select(['group_label', 'clustered', 'x', 'y'])
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
    },

    async places(scope: OpinionScope, scopeId: number): Promise<({ user_id: number } & Place)[]> {
      return db
        .selectFrom('opinion_group_places')
        .select(['user_id', 'group_label', 'clustered', 'x', 'y'])
        .where('scope', '=', scope)
        .where('scope_id', '=', scopeId)
        .orderBy('user_id')
        .execute()
    },
  }
}

export interface RunToKeep {
  scope: OpinionScope
  scopeId: number
  answersCounted: number
  signature: string
  answersSignature: string
  publishedInput: string
  model: unknown
  published: unknown
  places: ({ userId: number } & Place)[]
}

const lockScope = (trx: Db, scope: OpinionScope, scopeId: number) =>
  sql`SELECT pg_advisory_xact_lock(hashtext(${`opinion_groups:${scope}:${scopeId}`}))`.execute(trx)

async function copyPlaces(trx: Db, scope: OpinionScope, scopeId: number, places: RunToKeep['places']): Promise<void> {
  if (places.length === 0) return
  const line = (p: RunToKeep['places'][number]) =>
    `${scope}\t${scopeId}\t${p.userId}\t${p.group_label ?? '\\N'}\t${p.clustered ? 't' : 'f'}\t${p.x}\t${p.y}\n`
  async function* chunks() {
    for (let at = 0; at < places.length; at += 5_000)
      yield places
        .slice(at, at + 5_000)
        .map(line)
        .join('')
  }
  await copyIn(trx, 'COPY opinion_group_places (scope, scope_id, user_id, group_label, clustered, x, y) FROM STDIN', chunks())
}

/**
 * Replaces the scope's kept run and places, in the caller's transaction. One writer at a time per scope (a
 * transaction-level advisory lock): two processes finishing the same recompute store one after the other.
 */
export async function keepRun(trx: Db, run: RunToKeep): Promise<void> {
  await lockScope(trx, run.scope, run.scopeId)
  await trx.deleteFrom('opinion_group_runs').where('scope', '=', run.scope).where('scope_id', '=', run.scopeId).execute()
  await trx
    .insertInto('opinion_group_runs')
    .values({
      scope: run.scope,
      scope_id: run.scopeId,
      answers_counted: run.answersCounted,
      signature: run.signature,
      answers_signature: run.answersSignature,
      published_input: run.publishedInput,
      model: JSON.stringify(run.model),
      published: JSON.stringify(run.published),
    })
    .execute()
  await copyPlaces(trx, run.scope, run.scopeId, run.places)
}

export interface OutsidersToKeep {
  scope: OpinionScope
  scopeId: number
  signature: string
  answersSignature: string
  /** The kept run they were placed on: nothing is written if another process has kept a new one since. */
  publishedInput: string
  /** The people in the kept model: every other place is an outsider's. */
  modelAccounts: number[]
  outsiders: ({ userId: number } & Place)[]
}

/**
 * The answers moved but not what the groups are computed from: the kept run stays as it is (its time, groups and
 * model), its signatures move on, and the places of the people the model leaves out are made anew.
 */
export async function keepOutsiders(trx: Db, kept: OutsidersToKeep): Promise<void> {
  await lockScope(trx, kept.scope, kept.scopeId)
  const updated = await trx
    .updateTable('opinion_group_runs')
    .set({ signature: kept.signature, answers_signature: kept.answersSignature, checked_at: sql`now()` })
    .where('scope', '=', kept.scope)
    .where('scope_id', '=', kept.scopeId)
    .where('published_input', '=', kept.publishedInput)
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 0) return
  await sql`DELETE FROM opinion_group_places WHERE scope = ${kept.scope} AND scope_id = ${kept.scopeId}
    AND NOT user_id = ANY(${kept.modelAccounts}::int[])`.execute(trx)
  await copyPlaces(trx, kept.scope, kept.scopeId, kept.outsiders)
}
