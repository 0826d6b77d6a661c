import { sql, type Kysely } from 'kysely'
import { SHOWN_TAG_VOTES_SQL } from '../tags/tag-votes-count.ts'
import type { Database } from '../../db/database.ts'
import type { TagRow } from '../tags/tags.repository.ts'
import {
  callerLinkColumns,
  callerLinksFrom,
  userEmbedColumns,
  userEmbedsFrom,
  usersFromJson,
  usersWithAnswerCountsSql,
  type CallerLinks,
  type UserEmbeds,
  type UserRow,
} from '../users/users.repository.ts'
import { figureSources, figureSourcesFromJson, type PublishedChoice } from './published-figures.ts'
import { answerUnion, splitAnswers, type AnswerUnionRow, type Answers, type QuestionTagRow } from './questions.repository.ts'
import type { PublishedFigures } from '../../disclosure/figures.ts'

/**
 * Everything the full form of a page of questions embeds, each statement returning one row of json columns:
 * json keeps the page at a fixed number of statements whatever its size, where a typed row per relation would
 * take a statement each. json renders timestamps as text with microseconds, which `new Date` reads as both
 * drivers do (truncated to the millisecond), and numbers as their text, as the drivers parse them.
 */

/** What a page's questions embed, for anyone. */
export interface QuestionRelationsRequest {
  questionIds: number[]
  authorIds: number[]
  geoIds: number[]
  topicIds: number[]
  groupIds: number[]
  /** Whose public answers to read (their_vote), if anyone's. */
  theirUserId: number | null
  /** MIN_CELL_SIZE: the published figures read at most k private answers of each question. */
  k: number
}

/** A question-tag with its tag, without its figures (the published ones replace them). */
export type QuestionTagCore = Omit<QuestionTagRow, `direct_${string}`>

export interface QuestionRelations {
  authors: UserRow[]
  /** The authors' embeds, and the questions' areas among `areas`. */
  embeds: UserEmbeds
  questionTags: QuestionTagCore[]
  links: { id: number; question_id: number; link: string; title: string }[]
  topics: Map<number, TagRow>
  groups: Map<number, string>
  figures: PublishedFigures
  /** In their question's order (store_number), with their published figures. */
  choices: PublishedChoice[]
  theirs: Answers
}

const dated = <T>(row: Record<string, unknown>, names: string[]): T => {
  const out = { ...row }
  for (const name of names) out[name] = out[name] === null ? null : new Date(out[name] as string)
  return out as T
}

/** Answers aggregated as json, split as answersOf splits them. */
const answersFromJson = (json: unknown): Answers =>
  splitAnswers(((json ?? []) as Record<string, unknown>[]).map((row) => dated<AnswerUnionRow>(row, ['created_at', 'modified_at'])))

const answersJson = (userId: number, questionIds: number[], publicOnly: boolean) =>
  sql`(SELECT json_agg(a ORDER BY a.is_choice, a.id) FROM (${answerUnion(userId, questionIds, publicOnly)}) AS a)`

export function questionRelationsRepository(db: Kysely<Database>) {
  return {
    /**
     * One statement: the authors in full with their areas (and the questions' areas), the areas' politicians,
     * the authors' politicians and locations; question-tags with their tags, links, topics, group names; the raw
     * material of the published figures (choices included), as loadWithChoices reads it; `theirUserId`'s public
     * answers.
     */
    async of(request: QuestionRelationsRequest): Promise<QuestionRelations> {
      const { questionIds, authorIds, geoIds, topicIds, groupIds, theirUserId, k } = request
      const ids = sql`${questionIds}::int[]`
      const embeds = userEmbedColumns({
        userIds: sql`SELECT id FROM authors`,
        areaIds: sql`SELECT country_id FROM authors UNION ALL SELECT region_id FROM authors UNION ALL SELECT unnest(${geoIds}::int[])`,
        politicianIds: sql`SELECT politician_id FROM authors`,
      })
      const theirs = theirUserId === null ? sql`NULL::json` : answersJson(theirUserId, questionIds, true)
      const { rows } = await sql<Record<string, unknown>>`
        WITH authors AS (SELECT * FROM ${usersWithAnswerCountsSql} AS u WHERE id = ANY(${authorIds}::int[]))
        SELECT (SELECT json_agg(authors) FROM authors) AS authors, ${embeds},
          (SELECT json_agg(qt ORDER BY qt.question_id, qt.position, qt.id) FROM (
            SELECT question_tags.id, question_tags.question_id, question_tags.tag_id, question_tags.position,
                question_tags.created_at, question_tags.modified_at, tags.text, tags.followers_count, tags.questions_count, ${sql.raw(SHOWN_TAG_VOTES_SQL)} AS votes_count
              FROM question_tags JOIN tags ON tags.id = question_tags.tag_id WHERE question_tags.question_id = ANY(${ids})) AS qt) AS question_tags,
          (SELECT json_agg(json_build_array(l.id, l.question_id, l.link, l.title) ORDER BY l.id)
            FROM question_links l WHERE l.question_id = ANY(${ids})) AS links,
          (SELECT json_agg(t) FROM (SELECT tags.*, ${sql.raw(SHOWN_TAG_VOTES_SQL)} AS votes_count FROM tags
            WHERE tags.id = ANY(${topicIds}::int[])) AS t) AS topics,
          (SELECT json_agg(json_build_array(g.id, g.name)) FROM groups g WHERE g.id = ANY(${groupIds}::int[])) AS groups,
          (SELECT json_agg(f) FROM (${figureSources([...new Set(questionIds)], k)}) AS f) AS figures,
          ${theirs} AS theirs`.execute(db)
      const row = rows[0]!
      const { figures, choices } = figureSourcesFromJson(row.figures, k)
      const links = ((row.links ?? []) as [number, number, string, string][]).map(([id, question_id, link, title]) => ({
        id,
        question_id,
        link,
        title,
      }))
      const topics = ((row.topics ?? []) as Record<string, unknown>[]).map((tag) => dated<TagRow>(tag, ['created_at', 'modified_at']))
      return {
        authors: usersFromJson(row.authors),
        embeds: userEmbedsFrom(row as Parameters<typeof userEmbedsFrom>[0]),
        questionTags: ((row.question_tags ?? []) as Record<string, unknown>[]).map((tag) =>
          dated<QuestionTagCore>(tag, ['created_at', 'modified_at']),
        ),
        links,
        topics: new Map(topics.map((tag) => [tag.id, tag])),
        groups: new Map((row.groups ?? []) as [number, string][]),
        figures,
        choices,
        theirs: answersFromJson(row.theirs),
      }
    },

    /**
     * One statement: a signed-in caller's own fields on a page of questions: their answers (private ones too, with
     * their importance), their follow links to the authors, and (`withLatest`, when they wrote one of the
     * questions) their latest comparisons.
     */
    async ownFieldsOf(
      callerId: number,
      questionIds: number[],
      authorIds: number[],
      withLatest: boolean,
      latestSize: number,
    ): Promise<{ answers: Answers; links: CallerLinks }> {
      const links = callerLinkColumns(callerId, sql`SELECT unnest(${authorIds}::int[])`, withLatest, latestSize)
      const { rows } = await sql<{ answers: unknown; follows: unknown; latest: unknown }>`
        SELECT ${answersJson(callerId, questionIds, false)} AS answers, ${links}`.execute(db)
      const row = rows[0]!
      return { answers: answersFromJson(row.answers), links: callerLinksFrom(row) }
    },
  }
}
