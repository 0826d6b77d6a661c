import fs from 'node:fs'
import path from 'node:path'
import { ImportError } from '../../import/errors.ts'
import { storedCounts, type FamilyTally } from '../../engines/statistics/tally.ts'
import { slugify } from '../questions/slug.ts'
import { exists, readComments, readParticipantsVotes, readSummary, readVotes, type PolisComment, type VotesFile } from './polis-files.ts'

/** What an import of one Pol.is export will write, read and checked before the database is touched. */
export interface PolisPlan {
  /** The conversation's id (pol.is/<id>, else the directory's name): it names the participants' accounts. */
  conversation: string
  name: string
  description: string | null
  /**
   * Every comment, by comment id: each becomes a likert question, published unless it is hidden. A hidden one (moderated
   * out, or meta) is kept unpublished with its answers, which Pol.is's map counts (docs/opinion-groups.md); one
   * moderated out keeps no text.
   */
  questions: PolisQuestion[]
  /** How many comments are hidden, moderated out or meta (and not moderated out). */
  moderatedOut: number
  meta: number
  /** Columns of participants-votes.csv skipped (`xid`, …), by name. */
  skippedColumns: string[]
  /** Every participant of the votes file, and the authors of the comments kept, in id order. */
  participants: number[]
  votesFile: VotesFile
  /** The answers, in parallel lists: the question's index in `questions`, the participant, the likert value, the time. */
  answers: { question: number[]; participant: number[]; value: number[]; at: number[] | null }
  /** Each question's stored counts, as every answer write stores them (the figures are generated from them). */
  figures: Record<string, number>[]
}

export interface PolisQuestion extends PolisComment {
  hidden: 'moderated' | 'meta' | null
}

export interface PolisImportOptions {
  /** Comment ids of meta statements the export does not mark (`--meta`). */
  meta?: readonly number[]
}

/** Agree, pass, disagree (1, 0, -1) on the likert scale: 5, 3, 1. */
const likertOf = (vote: number) => 3 + 2 * vote

/** The account of a participant of a conversation: participant ids restart at 0 in every conversation. */
export const usernameOf = (conversation: string, participant: number) => `polis-${conversation}-${participant}`

/** pol.is/<id> from summary.csv's url; the directory's name, as a slug, for an export without one. */
function conversationOf(dir: string, url: string | undefined): string {
  const id = url?.match(/^https?:\/\/[^/]+\/([A-Za-z0-9]+)\/?$/)?.[1]
  return (id ?? slugify(path.basename(path.resolve(dir)))).toLowerCase()
}

function checkDirectory(dir: string): void {
  let stat: fs.Stats
  try {
    stat = fs.statSync(dir)
  } catch {
    throw new ImportError(`${dir}: no such directory`)
  }
  if (!stat.isDirectory()) throw new ImportError(`${dir}: not a directory`)
  if (!exists(dir, 'comments.csv')) throw new ImportError(`${dir}: no comments.csv`)
}

/**
 * Reads the export. votes.csv, the log of every vote, is read when the export has it: it says when each vote was
 * cast, which becomes the answer's time; participants-votes.csv (the latest vote of each participant on each
 * comment, without times) otherwise.
 */
export async function readPolisExport(dir: string, options: PolisImportOptions = {}): Promise<PolisPlan> {
  checkDirectory(dir)
  const comments = await readComments(dir)
  const summary = await readSummary(dir)
  const known = new Set(comments.map((comment) => comment.id))
  const unknown = (options.meta ?? []).filter((id) => !known.has(id))
  if (unknown.length > 0) throw new ImportError(`--meta names comment ${unknown.join(', ')}, which comments.csv does not have`)
  const meta = new Set(options.meta)
  let votes
  if (exists(dir, 'votes.csv')) votes = await readVotes(dir, known)
  else if (exists(dir, 'participants-votes.csv')) votes = await readParticipantsVotes(dir, known)
  else throw new ImportError(`${dir}: neither votes.csv nor participants-votes.csv`)

  const questions: PolisQuestion[] = comments
    .map((comment) => ({
      ...comment,
      meta: comment.meta || meta.has(comment.id),
      hidden: comment.moderated === -1 ? ('moderated' as const) : comment.meta || meta.has(comment.id) ? ('meta' as const) : null,
    }))
    .sort((a, b) => a.id - b.id)
  const indexOf = new Map(questions.map((comment, i) => [comment.id, i]))
  const answers: PolisPlan['answers'] = { question: [], participant: [], value: [], at: votes.at && [] }
  const tallies: FamilyTally[] = questions.map(() => ({ counts: [0, 0, 0, 0, 0], skipped: 0 }))
  votes.vote.forEach((vote, i) => {
    const question = indexOf.get(votes.comment[i])
    if (question === undefined) return
    const value = likertOf(vote)
    answers.question.push(question)
    answers.participant.push(votes.participant[i])
    answers.value.push(value)
    answers.at?.push(votes.at![i])
    tallies[question].counts[value - 1]++
  })
  const participants = new Set([...votes.participants, ...questions.map((comment) => comment.authorId)])
  return {
    conversation: conversationOf(dir, summary.url),
    name: summary.topic || path.basename(path.resolve(dir)),
    description: summary.description || null,
    questions,
    moderatedOut: questions.filter((q) => q.hidden === 'moderated').length,
    meta: questions.filter((q) => q.hidden === 'meta').length,
    skippedColumns: votes.skippedColumns,
    participants: [...participants].sort((a, b) => a - b),
    votesFile: votes.file,
    answers,
    // New questions have no tags and no delegations yet: every answer carries its own weight alone, so liquid equals direct.
    figures: tallies.map((direct) => storedCounts({ direct, liquid: direct })),
  }
}
