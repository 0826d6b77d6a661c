/**
 * The Pol.is open-data conversations in test/fixtures/polis (README there) as the engine's input, with the group
 * Pol.is gave each participant. Votes are the cells of participants-votes.csv (1 agree, −1 disagree, 0 pass, empty
 * unseen), read as likert columns. As Pol.is's map keeps them, the comments moderated out (moderated = −1 in
 * comments.csv) and the meta ones (demographic statements: `is-meta` where the export has it, else listed here)
 * are zeroed statements, not columns; `polisInput` gives the service's own map instead, where they are left out.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { polisCodeAt, type OpinionInput, type PolisCode } from '../../src/engines/opinion-groups/index.ts'
import { parseCsv } from '../helpers/csv.ts'

export const POLIS_CONVERSATIONS = [
  '15-per-hour-seattle',
  'football-concussions',
  'scoop-hivemind.ubi',
  'american-assembly.bowling-green',
] as const

/** Meta statements the export does not mark: ubi's 32–42 ask age, place, work and sex. */
export const POLIS_META: Record<string, number[]> = {
  'scoop-hivemind.ubi': Array.from({ length: 11 }, (_, i) => 32 + i),
}

export interface PolisConversation {
  name: string
  /** The number of groups Pol.is found (summary.csv). */
  groups: number
  /** Pol.is's map: moderated-out and meta statements zeroed or columns, as its code did at `code`. */
  input: OpinionInput
  code: PolisCode
  /** The conversation's last activity: its latest comment, or vote where votes.csv says. */
  date: Date
  /** Columns of `input` that are moderated-out or meta statements (Pol.is's code before 2017-02-27 kept them as columns). */
  hiddenColumns: Set<number>
  /** The same answers without the zeroed statements, for the service's own map. */
  serviceInput: OpinionInput
  /** Pol.is's group of each participant, by account id (participants it did not cluster are absent). */
  polisGroup: Map<number, number>
}

const folder = (name: string) => path.resolve('test/fixtures/polis', name)
const read = (name: string, file: string) => parseCsv(readFileSync(path.join(folder(name), file), 'utf8'))

export function loadPolisConversation(name: string, codeDate?: Date): PolisConversation {
  const summary = new Map(read(name, 'summary.csv').map(([key, value]) => [key, value]))
  const [commentHeader, ...comments] = read(name, 'comments.csv')
  const at = (column: string) => commentHeader.indexOf(column)
  const metaListed = new Set((POLIS_META[name] ?? []).map(String))
  const zeroedIds = new Set(
    comments
      .filter((c) => c[at('moderated')] === '-1' || c[at('is-meta')] === 'true' || metaListed.has(c[at('comment-id')]))
      .map((c) => c[at('comment-id')]),
  )
  let last = Math.max(...comments.map((c) => Number(c[at('timestamp')])))
  try {
    const [, ...votes] = read(name, 'votes.csv')
    for (const vote of votes) last = Math.max(last, Number(vote[0]))
  } catch {
    // No votes.csv: the comments date the conversation.
  }

  const [header, ...rows] = read(name, 'participants-votes.csv')
  const firstVote = header.indexOf('n-disagree') + 1
  const statements = header.map((id, at) => ({ id, at })).filter(({ at }) => at >= firstVote)
  const date = new Date(last)
  const code = polisCodeAt(codeDate ?? date)
  const asColumns = code.hidden === 'columns'
  const kept = statements.filter(({ id }) => asColumns || !zeroedIds.has(id))
  const zeroed = statements.filter(({ id }) => !asColumns && zeroedIds.has(id))
  const columns = kept.map(({ id }) => ({ key: `c${id}`, kind: 'likert' as const, question: Number(id) }))
  const voted = (row: string[], at: number) => row[at] !== '' && row[at] !== undefined
  const zeroedAnswered = new Map<number, number>()
  const polisGroup = new Map<number, number>()
  const participant: number[] = []
  const column: number[] = []
  const value: number[] = []
  const accountIds: number[] = []
  const zeroedVoted = new Set<string>()
  for (const row of rows) {
    const account = Number(row[0])
    const own = zeroed.filter(({ id, at }) => voted(row, at) && zeroedVoted.add(id)).length
    if (row[1] !== '') polisGroup.set(account, Number(row[1]))
    if (own === 0 && !kept.some(({ at }) => voted(row, at))) continue
    zeroedAnswered.set(account, own)
    kept.forEach(({ at }, j) => {
      if (!voted(row, at)) return
      participant.push(accountIds.length)
      column.push(j)
      value.push(Number(row[at]))
    })
    accountIds.push(account)
  }
  const answers = { participant, column, value }
  // The service's map: the zeroed statements dropped, and with them whoever answered only them.
  const answering = [...new Set(participant)].sort((a, b) => a - b)
  const indexOf = new Map(answering.map((p, i) => [p, i]))
  return {
    name,
    groups: Number(summary.get('groups')),
    input: {
      accountIds,
      columns,
      answers,
      zeroed: { statements: zeroedVoted.size, answered: accountIds.map((account) => zeroedAnswered.get(account)!) },
    },
    code,
    hiddenColumns: new Set(kept.flatMap(({ id }, j) => (zeroedIds.has(id) ? [j] : []))),
    date,
    serviceInput: asColumns
      ? dropped(name)
      : {
          accountIds: answering.map((p) => accountIds[p]),
          columns,
          answers: { participant: participant.map((p) => indexOf.get(p)!), column, value },
        },
    polisGroup,
  }
}

/** The service's own map of the conversation: moderated-out and meta statements dropped. */
const dropped = (name: string) => loadPolisConversation(name, new Date(Date.UTC(2020, 0, 1))).serviceInput
