import { sql, type RawBuilder, type Selectable } from 'kysely'
import type { QuestionCollections } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

/**
 * The one rule for every count of a collection (docs/collections.md, "What a count counts"): a caller counts
 * exactly the items they can list, its breaks and the questions `questionVisibleSql` lets them see. Others'
 * drafts are neither listed nor counted; the author and staff see theirs counted, as they see them listed.
 *
 * The stored `question_count` and `item_count` count every item (`civic-survey check` verifies them); what a
 * caller is shown is that total less the questions they cannot list, counted here in SQL, on the collection
 * row of the query, so a page's counts come with its rows in the same statement. Staff list every item: the
 * stored total is theirs as it is.
 */
export function unlistedQuestions(caller: Caller | null, collection = 'question_collections'): RawBuilder<number> {
  if (caller?.isStaff) return sql<number>`0`
  return sql<number>`(SELECT count(*)::int FROM question_collection_items unlisted_item
    JOIN questions unlisted_question ON unlisted_question.id = unlisted_item.question_id
    WHERE unlisted_item.parent_id = ${sql.ref(`${collection}.id`)} AND NOT ${questionVisibleSql(caller, 'unlisted_question')})`
}

/** The orderings by a count, on the counts the caller is shown (an ordering tells no more than the counts). */
export function listedCountOrdering(caller: Caller | null, collection = 'question_collections') {
  const unlisted = unlistedQuestions(caller, collection)
  return {
    question_count: sql<number>`(${sql.ref(`${collection}.question_count`)} - ${unlisted})`,
    item_count: sql<number>`(${sql.ref(`${collection}.item_count`)} - ${unlisted})`,
  }
}

/** A collection row as a repository reads it for a caller: the stored row and how many of its questions they cannot list. */
export type CollectionRowFor = Selectable<QuestionCollections> & { unlisted_questions: number }

/**
 * A collection as one caller sees it: the stored total counters are gone, so nothing can show them by mistake;
 * `listed_questions` and `listed_items` are what that caller lists (and what every count, progress figure and
 * completeness flag of theirs is measured against).
 */
export type ListedCollection = Omit<Selectable<QuestionCollections>, 'question_count' | 'item_count'> & {
  listed_questions: number
  listed_items: number
}

export function listedCollection(row: CollectionRowFor): ListedCollection {
  const { question_count, item_count, unlisted_questions, ...rest } = row
  const unlisted = Number(unlisted_questions)
  return { ...rest, listed_questions: question_count - unlisted, listed_items: item_count - unlisted }
}
