import fs from 'node:fs'
import path from 'node:path'
import { readCsv, type CsvRecord } from '../../import/csv.ts'
import { ImportError } from '../../import/errors.ts'
import { parseCount, quoted } from '../../import/values.ts'
import { TITLE_LENGTH } from '../questions/question-writes.schemas.ts'

/**
 * The files of a Pol.is open-data export (https://github.com/compdemocracy/openData), read and checked. Every
 * fault is an ImportError naming the file and the line: `votes.csv line 12: ...`.
 */

/** A line of comments.csv. */
export interface PolisComment {
  id: number
  authorId: number
  text: string
  /** -1: moderated out (Pol.is zeroes it in its map), 0: not moderated yet, 1: accepted. */
  moderated: number
  /** A meta statement (`is-meta`): a question about the participant (age, town), zeroed in Pol.is's map. */
  meta: boolean
  /** Milliseconds since 1970. */
  createdAt: number
}

/** What the import takes from summary.csv (a key and a value a line); each absent when the file or its line is. */
export interface PolisSummary {
  topic?: string
  url?: string
  description?: string
}

export type VotesFile = 'votes.csv' | 'participants-votes.csv'

/** The votes that count, one per participant and comment, in parallel lists; every participant the file names. */
export interface PolisVotes {
  file: VotesFile
  participants: Set<number>
  comment: number[]
  participant: number[]
  /** 1 agree, -1 disagree, 0 pass. */
  vote: number[]
  /** When each vote was cast (milliseconds), where the file says (votes.csv). */
  at: number[] | null
  /** Columns of participants-votes.csv that are neither a comment nor read (`xid`, …), skipped, by name. */
  skippedColumns: string[]
}

/** The longest collection name and description the API takes (collections.schemas.ts). */
const NAME_LENGTH = 200
const DESCRIPTION_LENGTH = 10_000

const VOTES = new Map([
  ['1', 1],
  ['-1', -1],
  ['0', 0],
])
/** The columns of participants-votes.csv before its one column per comment. */
const PARTICIPANT_COLUMNS = ['participant', 'group-id', 'n-comments', 'n-votes', 'n-agree', 'n-disagree']
/** `is-meta` as the exports write it (`true`, `false`), and as a spreadsheet may. */
const FLAGS = new Map([
  ['true', true],
  ['false', false],
  ['t', true],
  ['f', false],
  ['1', true],
  ['0', false],
  ['', false],
])

export const exists = (dir: string, name: string) => fs.existsSync(path.join(dir, name))

/** A file's records; a fault of the CSV itself (a quote never closed) is told with the file's name. */
async function* records(dir: string, name: string): AsyncGenerator<CsvRecord> {
  try {
    for await (const record of readCsv(path.join(dir, name))) yield record
  } catch (error) {
    throw error instanceof ImportError ? new ImportError(`${name} ${error.message}`) : error
  }
}

/** Where a file went wrong: `file.csv line N: what`. */
const fault = (name: string, record: CsvRecord, what: string) => new ImportError(`${name} line ${record.line}: ${what}`)

/**
 * The position of each required column in a header line (names compared case-insensitively, in any order), and of
 * each optional one the header has (−1 when it has not).
 */
function columnsOf(name: string, record: CsvRecord, required: readonly string[], optional: readonly string[] = []): Record<string, number> {
  const cells = record.fields.map((cell) => cell.trim().toLowerCase())
  const at: Record<string, number> = {}
  for (const column of required) {
    at[column] = cells.indexOf(column)
    if (at[column] < 0) throw fault(name, record, `the header has no ${column} column`)
  }
  for (const column of optional) at[column] = cells.indexOf(column)
  return at
}

function checkWidth(name: string, record: CsvRecord, width: number): void {
  if (record.fields.length !== width) throw fault(name, record, `${record.fields.length} columns where the header has ${width}`)
}

/** An id: a whole number from 0 to the int4 limit. */
function idOf(name: string, record: CsvRecord, column: string, text: string): number {
  const id = parseCount(text)
  if (id === null) throw fault(name, record, `${column} ${quoted(text)} is not a whole number`)
  return id
}

/** A time in milliseconds since 1970, as Pol.is writes it. */
function timestampOf(name: string, record: CsvRecord, text: string): number {
  const value = /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : NaN
  if (Number.isNaN(new Date(value).getTime())) throw fault(name, record, `timestamp ${quoted(text)} is not a time in milliseconds`)
  return value
}

/** A file's header, then its records checked against it: `read` takes each record with the header's columns. */
async function readTable(dir: string, name: string, header: (record: CsvRecord) => void, read: (record: CsvRecord) => void): Promise<void> {
  let width = -1
  for await (const record of records(dir, name)) {
    if (width < 0) {
      header(record)
      width = record.fields.length
      continue
    }
    checkWidth(name, record, width)
    read(record)
  }
  if (width < 0) throw new ImportError(`${name} is empty (it needs a header line naming its columns)`)
}

export async function readComments(dir: string): Promise<PolisComment[]> {
  const name = 'comments.csv'
  let at: Record<string, number> = {}
  const comments: PolisComment[] = []
  const lineOf = new Map<number, number>()
  await readTable(
    dir,
    name,
    (record) => (at = columnsOf(name, record, ['timestamp', 'comment-id', 'author-id', 'moderated', 'comment-body'], ['is-meta'])),
    (record) => {
      const field = (column: string) => record.fields[at[column]]
      const id = idOf(name, record, 'comment-id', field('comment-id'))
      const first = lineOf.get(id)
      if (first !== undefined) throw fault(name, record, `comment-id ${id} is already on line ${first}`)
      lineOf.set(id, record.line)
      const moderated = VOTES.get(field('moderated').trim())
      if (moderated === undefined) throw fault(name, record, `moderated ${quoted(field('moderated'))} is not -1, 0 or 1`)
      const meta = at['is-meta'] < 0 ? false : FLAGS.get(field('is-meta').trim().toLowerCase())
      if (meta === undefined) throw fault(name, record, `is-meta ${quoted(field('is-meta'))} is not true or false`)
      const text = field('comment-body').trim()
      // A comment moderated out keeps its answers but not its text, which may be anything, even empty.
      if (moderated !== -1 && text === '') throw fault(name, record, `comment ${id} has no text`)
      const length = [...text].length
      if (moderated !== -1 && length > TITLE_LENGTH)
        throw fault(name, record, `comment ${id} has ${length} characters, more than a question's ${TITLE_LENGTH}`)
      const authorId = idOf(name, record, 'author-id', field('author-id'))
      comments.push({ id, authorId, text, moderated, meta, createdAt: timestampOf(name, record, field('timestamp')) })
    },
  )
  if (comments.length === 0) throw new ImportError(`${name} has a header but no comments`)
  return comments
}

/** summary.csv, when the export has it: `key,value` lines, of which topic, url and conversation-description are read. */
export async function readSummary(dir: string): Promise<PolisSummary> {
  const name = 'summary.csv'
  const summary: PolisSummary = {}
  if (!exists(dir, name)) return summary
  const limits: Record<string, [keyof PolisSummary, number]> = {
    topic: ['topic', NAME_LENGTH],
    url: ['url', NAME_LENGTH],
    'conversation-description': ['description', DESCRIPTION_LENGTH],
  }
  for await (const record of records(dir, name)) {
    const key = record.fields[0].trim().toLowerCase()
    if (!(key in limits)) continue
    const [field, limit] = limits[key]
    // A value with commas left unquoted is still one value.
    const value = record.fields.slice(1).join(',').trim()
    if ([...value].length > limit) throw fault(name, record, `the ${key} is longer than ${limit} characters`)
    summary[field] = value
  }
  return summary
}

/** participants-votes.csv: a line per participant, a column per comment (1 agree, -1 disagree, 0 pass, empty unseen). */
export async function readParticipantsVotes(dir: string, comments: ReadonlySet<number>): Promise<PolisVotes> {
  const name = 'participants-votes.csv'
  const votes: PolisVotes = { file: name, participants: new Set(), comment: [], participant: [], vote: [], at: null, skippedColumns: [] }
  let participantAt = -1
  let commentOf: (number | null)[] = []
  const lineOf = new Map<number, number>()
  await readTable(
    dir,
    name,
    (record) => {
      participantAt = columnsOf(name, record, ['participant']).participant
      commentOf = commentColumns(name, record, comments, votes.skippedColumns)
    },
    (record) => {
      const participant = idOf(name, record, 'participant', record.fields[participantAt])
      const first = lineOf.get(participant)
      if (first !== undefined) throw fault(name, record, `participant ${participant} is already on line ${first}`)
      lineOf.set(participant, record.line)
      votes.participants.add(participant)
      commentOf.forEach((comment, i) => {
        const cell = record.fields[i]
        if (comment === null || cell === '') return
        const vote = VOTES.get(cell.trim())
        if (vote === undefined) throw fault(name, record, `${quoted(cell)} under comment ${comment} is not a vote (1, -1, 0 or empty)`)
        votes.comment.push(comment)
        votes.participant.push(participant)
        votes.vote.push(vote)
      })
    },
  )
  return votes
}

/**
 * The comment id of each column of participants-votes.csv's header: null for the participant's own columns, and
 * for any other column that is not a number (`xid`, the participant's id elsewhere, in some exports), whose name
 * goes to `skipped`. A number that is no comment of comments.csv is a fault.
 */
function commentColumns(name: string, record: CsvRecord, comments: ReadonlySet<number>, skipped: string[]): (number | null)[] {
  const seen = new Set<number>()
  return record.fields.map((cell, i) => {
    if (PARTICIPANT_COLUMNS.includes(cell.trim().toLowerCase())) return null
    if (!/^\s*\d+\s*$/.test(cell)) {
      skipped.push(cell.trim() === '' ? `column ${i + 1}` : cell.trim())
      return null
    }
    const comment = parseCount(cell)
    if (comment === null) throw fault(name, record, `column ${i + 1} ${quoted(cell)} is not a comment id`)
    if (!comments.has(comment)) throw fault(name, record, `column ${i + 1} is comment ${comment}, which comments.csv does not have`)
    if (seen.has(comment)) throw fault(name, record, `comment ${comment} has two columns`)
    seen.add(comment)
    return comment
  })
}

/** votes.csv: every vote cast, in any order; of a participant's votes on a comment the latest counts (on a tie, the later line). */
export async function readVotes(dir: string, comments: ReadonlySet<number>): Promise<PolisVotes> {
  const name = 'votes.csv'
  const at: number[] = []
  const votes: PolisVotes = { file: name, participants: new Set(), comment: [], participant: [], vote: [], at, skippedColumns: [] }
  let column: Record<string, number> = {}
  // comment → voter → the index of the vote that counts
  const counted = new Map<number, Map<number, number>>()
  await readTable(
    dir,
    name,
    (record) => (column = columnsOf(name, record, ['timestamp', 'comment-id', 'voter-id', 'vote'])),
    (record) => {
      const field = (key: string) => record.fields[column[key]]
      const comment = idOf(name, record, 'comment-id', field('comment-id'))
      if (!comments.has(comment)) throw fault(name, record, `comment-id ${comment} is not in comments.csv`)
      const voter = idOf(name, record, 'voter-id', field('voter-id'))
      const vote = VOTES.get(field('vote').trim())
      if (vote === undefined) throw fault(name, record, `vote ${quoted(field('vote'))} is not 1, -1 or 0`)
      const time = timestampOf(name, record, field('timestamp'))
      votes.participants.add(voter)
      const byVoter = counted.get(comment) ?? counted.set(comment, new Map()).get(comment)!
      const index = byVoter.get(voter)
      if (index === undefined) {
        byVoter.set(voter, votes.vote.length)
        votes.comment.push(comment)
        votes.participant.push(voter)
        votes.vote.push(vote)
        at.push(time)
      } else if (time >= at[index]) {
        votes.vote[index] = vote
        at[index] = time
      }
    },
  )
  return votes
}
