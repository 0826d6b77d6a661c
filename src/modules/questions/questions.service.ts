import { areaMap } from '../areas/areas.service.ts'
import { toFullUsers } from '../users/users.service.ts'
import { NO_CALLER_LINKS } from '../users/users.repository.ts'
import { LATEST_COMPARE_SIZE } from '../compare/compare.service.ts'
import { toChoice, toQuestion, toQuestionTag, votesByQuestion } from './questions.mapper.ts'
import type { Caller } from '../../core/caller.ts'
import { questionsRepository, type ChoiceRow, type QuestionRow, type QuestionTagRow } from './questions.repository.ts'
import { questionRelationsRepository } from './question-relations.repository.ts'
import type { Question, VoteSummary } from './questions.schemas.ts'
import { withFigures } from '../../disclosure/figures.ts'
import type { ViewContext } from '../../core/view-context.ts'

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

const present = (ids: (number | null)[]): number[] => [...new Set(ids.filter((id): id is number => id !== null))]

export interface QuestionViewOptions {
  /** Whose public answers fill their_vote (the user a listing is filtered by), if anyone's. */
  theirUserId?: number | null
}

/**
 * Full questions for a page of rows in one statement, two for a signed-in caller, whatever the page's size: what
 * anyone sees (authors, tags, choices, links, topics, groups, areas, the published figures, their_vote's public
 * answers), then the caller's own fields (their answers, importance, follow links, latest comparisons). Everyone
 * sees the same figures (src/disclosure/figures.ts); the caller's own answer is in my_vote.
 */
export async function questionsFromRows(context: ViewContext, rows: QuestionRow[], options: QuestionViewOptions = {}): Promise<Question[]> {
  if (rows.length === 0) return []
  const { db, urls } = context
  const callerId = context.caller?.id ?? null
  const ids = rows.map((row) => row.id)
  const authorIds = present(rows.map((row) => row.user_id))
  const theirUserId = options.theirUserId ?? null
  const repository = questionRelationsRepository(db)
  const [related, own] = await Promise.all([
    repository.of({
      questionIds: ids,
      authorIds,
      geoIds: present(rows.map((row) => row.geo_id)),
      topicIds: present(rows.map((row) => row.topic_id)),
      groupIds: present(rows.map((row) => row.group_id)),
      // The caller's own answers, private ones too, come with their own fields.
      theirUserId: theirUserId === callerId ? null : theirUserId,
      k: context.minCellSize,
    }),
    callerId === null ? null : repository.ownFieldsOf(callerId, ids, authorIds, authorIds.includes(callerId), LATEST_COMPARE_SIZE),
  ])
  const { figures } = related
  const users = toFullUsers(context, related.authors, related.embeds, own?.links ?? NO_CALLER_LINKS)
  const areas = areaMap(related.embeds.areas, urls)
  const tagsByQuestion = groupBy(related.questionTags, (row) => row.question_id)
  const choicesByQuestion = groupBy(related.choices, (row) => row.question_id)
  const linksByQuestion = groupBy(related.links, (row) => row.question_id)
  const mine = own?.answers ?? { likert: [], choices: [] }
  const myVotes = votesByQuestion(mine)
  const theirVotes = theirUserId === null ? new Map() : theirUserId === callerId ? myVotes : votesByQuestion(related.theirs)
  const importance = new Map(mine.likert.filter((vote) => vote.importance !== null).map((vote) => [vote.question_id, vote]))
  const none: VoteSummary[] = []
  return rows.map((row) => {
    const myImportance = importance.get(row.id)
    return toQuestion(
      withFigures(row, figures.question(row.id)),
      {
        user: users.get(row.user_id)!,
        tags: (tagsByQuestion.get(row.id) ?? []).map((tag) => toQuestionTag({ ...tag, ...figures.questionTag(tag.id) } as QuestionTagRow)),
        choices: (choicesByQuestion.get(row.id) ?? []).map((choice) => toChoice(choice as unknown as ChoiceRow, urls)),
        links: (linksByQuestion.get(row.id) ?? []).map(({ id, link, title }) => ({ id, link, title })),
        topic: row.topic_id === null ? undefined : related.topics.get(row.topic_id),
        groupName: row.group_id === null ? null : (related.groups.get(row.group_id) ?? null),
        geo: row.geo_id === null ? undefined : areas.get(row.geo_id),
        myVote: myVotes.get(row.id) ?? none,
        theirVote: theirVotes.get(row.id) ?? none,
        myImportance: myImportance
          ? [{ object_id: row.id, value: myImportance.importance!, modified_at: myImportance.modified_at.toISOString() }]
          : [],
      },
      urls,
    )
  })
}

/** One question as the caller may see it in its full form, or undefined when it is not there for them. */
export async function loadQuestion(context: ViewContext, caller: Caller | null, questionId: number): Promise<Question | undefined> {
  const row = await questionsRepository(context.db).find(questionId, caller)
  if (!row) return undefined
  const [question] = await questionsFromRows(context, [row])
  return question
}
