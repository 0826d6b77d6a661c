/**
 * The Pol.is open-data conversations in test/fixtures/polis (README there) as the engine's input, with the group
 * Pol.is gave each participant. Votes are the cells of participants-votes.csv (1 agree, −1 disagree, 0 pass, empty
 * unseen), read as likert columns; comments moderated out (moderated = −1 in comments.csv) are left out, as Pol.is
 * leaves them out of its math.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { OpinionInput } from '../../src/engines/opinion-groups/index.ts'
import { parseCsv } from '../helpers/csv.ts'

export const POLIS_CONVERSATIONS = [
  '15-per-hour-seattle',
  'football-concussions',
  'scoop-hivemind.ubi',
  'american-assembly.bowling-green',
] as const

export interface PolisConversation {
  name: string
  /** The number of groups Pol.is found (summary.csv). */
  groups: number
  input: OpinionInput
  /** Pol.is's group of each participant, by account id (participants it did not cluster are absent). */
  polisGroup: Map<number, number>
}

const folder = (name: string) => path.resolve('test/fixtures/polis', name)
const read = (name: string, file: string) => parseCsv(readFileSync(path.join(folder(name), file), 'utf8'))

export function loadPolisConversation(name: string): PolisConversation {
  const summary = new Map(read(name, 'summary.csv').map(([key, value]) => [key, value]))
  const [commentHeader, ...comments] = read(name, 'comments.csv')
  const idAt = commentHeader.indexOf('comment-id')
  const moderatedAt = commentHeader.indexOf('moderated')
  const moderatedOut = new Set(comments.filter((c) => c[moderatedAt] === '-1').map((c) => c[idAt]))

  const [header, ...rows] = read(name, 'participants-votes.csv')
  const firstVote = header.indexOf('n-disagree') + 1
  const kept = header.map((id, at) => ({ id, at })).filter(({ id, at }) => at >= firstVote && !moderatedOut.has(id))
  const columns = kept.map(({ id }) => ({ key: `c${id}`, kind: 'likert' as const, question: Number(id) }))
  const accountIds: number[] = []
  const polisGroup = new Map<number, number>()
  const participant: number[] = []
  const column: number[] = []
  const value: number[] = []
  for (const row of rows) {
    const account = Number(row[0])
    if (row[1] !== '') polisGroup.set(account, Number(row[1]))
    kept.forEach(({ at }, j) => {
      if (row[at] === '' || row[at] === undefined) return
      participant.push(accountIds.length)
      column.push(j)
      value.push(Number(row[at]))
    })
    accountIds.push(account)
  }
  return {
    name,
    groups: Number(summary.get('groups')),
    input: { accountIds, columns, answers: { participant, column, value } },
    polisGroup,
  }
}
