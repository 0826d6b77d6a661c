import type { ViewContext } from '../../core/view-context.ts'
import { releaseGroup, releaseSiblings, releaseWhole, shownCount } from '../../disclosure/release.ts'
import { percentage } from './collections.mapper.ts'
import type { ListedCollection } from './listed-counts.ts'
import { collectionFigures, type CollectionFigures } from './collection-stats.repository.ts'
import type { CollectionStats } from './related.schemas.ts'

/**
 * The figures of one collection as the disclosure rules let them out (docs/collections.md): the group is its
 * answerers; their private answers count once k of them have one there, and until then every figure is that of the
 * public answers alone (people with a public answer, their public answers, those who answered everything
 * publicly), so a private answer changes nothing; nothing is shown below k answerers counted that way; the people
 * who answered everything, and the others, are siblings under them (secondary suppression).
 */
function releasedFigures(figures: CollectionFigures | undefined, questionCount: number, k: number) {
  if (!figures) return {}
  // Rule 1 counts the people with a private answer; those of them with a public one too are public answerers anyway.
  const { withPrivate } = releaseWhole({ public: figures.public_answerers, private: figures.private_people }, k)
  // Partitions of the answerers shown: by whether they have a private answer, and whether they answered everything.
  const everyone = withPrivate
    ? { public: figures.answerers - figures.private_people, private: figures.private_people }
    : { public: figures.public_answerers, private: 0 }
  const complete = withPrivate
    ? { public: figures.complete_count - figures.complete_private_people, private: figures.complete_private_people }
    : { public: figures.public_complete_count, private: 0 }
  const release = releaseGroup(everyone, k)
  if (!release.published) return {}
  const others = { public: everyone.public - complete.public, private: everyone.private - complete.private }
  const [completeRelease] = releaseSiblings([complete, others], k, { count: everyone, release })
  const answerers = shownCount(everyone, release)
  const answers = withPrivate ? figures.answers : figures.public_answers
  return {
    answerers,
    answers,
    ...(completeRelease.published ? { complete_count: shownCount(complete, completeRelease) } : {}),
    completion: percentage(answers, answerers * questionCount),
  }
}

/**
 * The figures of each collection, released for the viewer's MIN_CELL_SIZE, in one statement for the page: over the
 * questions the caller lists, complete meaning all of those.
 */
export async function collectionStatsFromRows(context: ViewContext, rows: ListedCollection[]): Promise<CollectionStats[]> {
  const figures = await collectionFigures(context.db, context.caller, rows)
  return rows.map((row) => ({
    id: row.id,
    url: context.urls.detail('collection_stats', row.id),
    collection: row.id,
    collection_url: context.urls.detail('question_collections', row.id),
    question_count: row.listed_questions,
    item_count: row.listed_items,
    ...releasedFigures(figures.get(row.id), row.listed_questions, context.minCellSize),
  }))
}
