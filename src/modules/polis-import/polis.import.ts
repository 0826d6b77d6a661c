import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { ImportError } from '../../import/errors.ts'
import { quoted } from '../../import/values.ts'
import { nextFreeSlug, slugify } from '../questions/slug.ts'
import { IMPORT_ACCOUNT, polisImportRepository } from './polis-import.repository.ts'
import { usernameOf, type PolisPlan, type PolisQuestion } from './polis-plan.ts'

export { readPolisExport } from './polis-plan.ts'

/**
 * `civic-survey import-polis DIR [--meta ID,…]`: a Pol.is open-data export (comments.csv, votes.csv or
 * participants-votes.csv, summary.csv when there is one) as one collection of likert questions, one a comment,
 * answered by one account a participant (agree 5, pass 3, disagree 1, public). Each question's author is the
 * account of the comment's author, as Pol.is publishes who wrote each comment. Comments moderated out and meta
 * statements (`is-meta`, or `--meta`) are kept unpublished with their answers: never asked or shown, but counted
 * by the opinion groups as Pol.is's map counts them (docs/opinion-groups.md); one moderated out keeps no text. The
 * export is read and checked whole first, then written in one transaction: a bad file, or a conversation imported
 * before, changes nothing.
 */

export interface PolisImportResult {
  /** Comments published as questions. */
  comments: number
  moderatedOut: number
  meta: number
  participants: number
  answers: number
  votesFile: string
  skippedColumns: string[]
  collection: { id: number; name: string }
}

const SLUG_ATTEMPTS = 5
const COPY_LINES = 20_000

/** The import's one line on stderr (the command adds the time). */
export function describePolisImport(result: PolisImportResult): string {
  const n = (count: number) => count.toLocaleString('en-US')
  const skipped = result.skippedColumns.length > 0 ? ` (columns skipped: ${result.skippedColumns.join(', ')})` : ''
  return (
    `imported ${n(result.comments)} comments as questions, ${n(result.moderatedOut)} moderated out and ${n(result.meta)} meta kept unpublished, ` +
    `${n(result.participants)} participants, ${n(result.answers)} answers from ${result.votesFile}${skipped} ` +
    `into collection ${result.collection.id} ${quoted(result.collection.name, 60)}`
  )
}

/** The text of a question kept for a comment moderated out: its own text is not kept. */
export const moderatedOutText = (commentId: number) => `Pol.is comment ${commentId}, moderated out`

/** Writes what `readPolisExport` read, in one transaction. */
export async function importPolis(db: Kysely<Database>, plan: PolisPlan): Promise<PolisImportResult> {
  const usernames = plan.participants.map((participant) => usernameOf(plan.conversation, participant))
  return db.transaction().execute(async (trx) => {
    const repository = polisImportRepository(trx)
    await repository.lockImports()
    await refuseImportedBefore(repository, plan, usernames)
    const owner = await repository.accountMadeOnce(IMPORT_ACCOUNT)
    if (owner.password_hash !== null || owner.email !== null)
      throw new ImportError(`the account ${IMPORT_ACCOUNT}, which owns imported collections, is someone's (it has a password or an e-mail)`)
    const ids = await repository.insertAccounts(usernames)
    const accountOf = new Map(plan.participants.map((participant, i) => [participant, ids.get(usernames[i])!]))
    const collection = await repository.insertCollection(owner.id, plan.name, plan.description, plan.questions.length)
    const questionIds = await insertQuestions(repository, plan, accountOf)
    await repository.insertItems(
      collection,
      questionIds,
      plan.questions.map((comment) => comment.id),
    )
    await repository.copyAnswers(answerLines(plan, questionIds, accountOf, collection), plan.answers.at !== null)
    await repository.countNewAccounts([...accountOf.values()])
    return {
      comments: plan.questions.length - plan.moderatedOut - plan.meta,
      moderatedOut: plan.moderatedOut,
      meta: plan.meta,
      participants: plan.participants.length,
      answers: plan.answers.value.length,
      votesFile: plan.votesFile,
      skippedColumns: plan.skippedColumns,
      collection: { id: collection, name: plan.name },
    }
  })
}

type Repository = ReturnType<typeof polisImportRepository>

/**
 * A conversation is imported once: its accounts exist after the first import. Updating in place would mean moving,
 * withdrawing and keeping in the history answers that a later export changed; refusing never counts anyone twice.
 */
async function refuseImportedBefore(repository: Repository, plan: PolisPlan, usernames: string[]): Promise<void> {
  const taken = await repository.takenUsernames(usernames)
  if (taken.length === 0) return
  const collection = await repository.collectionAnsweredBy(taken)
  const others = taken.length > 1 ? ` and ${taken.length - 1} more` : ''
  throw new ImportError(
    collection
      ? `the Pol.is conversation ${plan.conversation} is already imported, as collection ${collection.id} ${quoted(collection.name, 60)}`
      : `the accounts ${taken[0]}${others} of the Pol.is conversation ${plan.conversation} exist already`,
  )
}

const textOf = (comment: PolisQuestion) => (comment.hidden === 'moderated' ? moderatedOutText(comment.id) : comment.text)

/** The questions in comment order, each under the first slug its text leaves free: their ids. */
async function insertQuestions(repository: Repository, plan: PolisPlan, accountOf: Map<number, number>): Promise<number[]> {
  const ids: number[] = []
  const columns = Object.keys(plan.figures[0] ?? {})
  let pending = plan.questions.map((_, i) => i)
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > SLUG_ATTEMPTS) throw new Error(`no free slugs for ${pending.length} questions: other writers keep taking them`)
    const bases = pending.map((i) => slugify(textOf(plan.questions[i])))
    const slugs = freeSlugs(bases, await repository.slugsTaken([...new Set(bases)]))
    const questions = pending.map((i, k) => {
      const comment = plan.questions[i]
      const createdAt = new Date(comment.createdAt)
      const publish = comment.hidden === null
      return {
        userId: accountOf.get(comment.authorId)!,
        text: textOf(comment),
        slug: slugs[k],
        createdAt,
        publish,
        figures: plan.figures[i],
      }
    })
    const inserted = await repository.insertQuestions(questions, columns)
    pending = pending.filter((i, k) => {
      const id = inserted.get(slugs[k])
      if (id !== undefined) ids[i] = id
      return id === undefined
    })
  }
  return ids
}

/** A slug for each base: free in the database (`taken`) and not given twice here. */
function freeSlugs(bases: string[], taken: string[]): string[] {
  // base → the slugs in use that are it or it with a -N suffix
  const inUse = new Map<string, string[]>()
  const use = (slug: string) => {
    for (const base of new Set([slug, slug.replace(/-\d+$/, '')])) (inUse.get(base) ?? inUse.set(base, []).get(base)!).push(slug)
  }
  taken.forEach(use)
  return bases.map((base) => {
    const slug = nextFreeSlug(base, inUse.get(base) ?? [])
    use(slug)
    return slug
  })
}

/** The answers as COPY text, a block of lines at a time: public, in the collection, at the vote's time when known. */
async function* answerLines(plan: PolisPlan, questionIds: number[], accountOf: Map<number, number>, collection: number) {
  const { question, participant, value, at } = plan.answers
  let block = ''
  for (let i = 0; i < value.length; i++) {
    const time = at ? `\t${new Date(at[i]).toISOString()}` : ''
    block += `${questionIds[question[i]]}\t${accountOf.get(participant[i])}\t${value[i]}\t${collection}\tf${time}${time}\n`
    if ((i + 1) % COPY_LINES === 0) {
      yield block
      block = ''
    }
  }
  if (block !== '') yield block
}
