import { loadAreas } from '../areas/areas.service.ts'
import { tagsRepository } from '../tags/tags.repository.ts'
import { loadFullUsers } from '../users/users.service.ts'
import { toChoice, toQuestion, toQuestionTag, votesByQuestion } from './questions.mapper.ts'
import type { Caller } from '../../core/caller.ts'
import { questionsRepository, type QuestionRow } from './questions.repository.ts'
import type { Question, VoteSummary } from './questions.schemas.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { loadPublishedFigures } from './published-figures.ts'
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

export interface QuestionViewOptions {
  /** Whose public answers fill their_vote (the user a listing is filtered by), if anyone's. */
  theirUserId?: number | null
}

/**
 * Full questions for a page of rows in a fixed number of statements: authors, tags, choices,
 * links, topics, groups, areas, the published figures and the caller's answers are each loaded once for the
 * whole page. Everyone sees the same figures (src/disclosure/figures.ts); the caller's own answer is in my_vote.
 */
export async function questionsFromRows(context: ViewContext, rows: QuestionRow[], options: QuestionViewOptions = {}): Promise<Question[]> {
  if (rows.length === 0) return []
  const { db, urls } = context
  const callerId = context.caller?.id ?? null
  const repository = questionsRepository(db)
  const ids = rows.map((row) => row.id)
  const theirUserId = options.theirUserId ?? null
  const noAnswers = Promise.resolve({ likert: [], choices: [] })
  const [users, tags, choices, links, topics, groups, areas, mine, theirs, figures] = await Promise.all([
    loadFullUsers(
      context,
      rows.map((row) => row.user_id),
    ),
    repository.questionTags(ids),
    repository.choices(ids),
    repository.links(ids),
    tagsRepository(db).findByIds(rows.map((row) => row.topic_id).filter((id): id is number => id !== null)),
    repository.groupNames(rows.map((row) => row.group_id).filter((id): id is number => id !== null)),
    loadAreas(
      db,
      rows.map((row) => row.geo_id),
      urls,
    ),
    callerId === null ? noAnswers : repository.answersOf(callerId, ids, false),
    theirUserId === null ? noAnswers : repository.answersOf(theirUserId, ids, theirUserId !== callerId),
    loadPublishedFigures(db, ids, context.minCellSize),
  ])
  const tagsByQuestion = groupBy(tags, (row) => row.question_id)
  const choicesByQuestion = groupBy(choices, (row) => row.question_id)
  const linksByQuestion = groupBy(links, (row) => row.question_id)
  const myVotes = votesByQuestion(mine)
  const theirVotes = votesByQuestion(theirs)
  const importance = new Map(mine.likert.filter((vote) => vote.importance !== null).map((vote) => [vote.question_id, vote]))
  const none: VoteSummary[] = []
  return rows.map((row) => {
    const myImportance = importance.get(row.id)
    return toQuestion(
      withFigures(row, figures.question(row.id)),
      {
        user: users.get(row.user_id)!,
        tags: (tagsByQuestion.get(row.id) ?? []).map((tag) => toQuestionTag(withFigures(tag, figures.questionTag(tag.id)))),
        choices: (choicesByQuestion.get(row.id) ?? []).map((choice) => toChoice(withFigures(choice, figures.choice(choice.id)), urls)),
        links: (linksByQuestion.get(row.id) ?? []).map(({ id, link, title }) => ({ id, link, title })),
        topic: row.topic_id === null ? undefined : topics.get(row.topic_id),
        groupName: row.group_id === null ? null : (groups.get(row.group_id) ?? null),
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
