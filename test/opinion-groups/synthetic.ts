/** Seeded synthetic conversations with planted groups, for the engine's tests. */
import type { OpinionColumn, OpinionInput } from '../../src/engines/opinion-groups/index.ts'
import { seededRandom } from '../helpers/random.ts'

export interface Planted {
  input: OpinionInput
  /** The planted group of each participant index. */
  planted: number[]
}

/**
 * `participants` people in `groups` planted groups (sizes in the ratio of `shares`), answering `likert` likert
 * questions (−2..2) with probability `answerRate`, each group leaning its own way on each question, and one
 * multiple-choice question of 3 choices. Account ids are scattered (not the participant indices).
 */
export function plantedConversation(seed: number, participants: number, likert: number, shares: number[], answerRate = 0.7): Planted {
  const random = seededRandom(seed)
  const groups = shares.length
  const total = shares.reduce((a, b) => a + b, 0)
  const leaning = Array.from({ length: groups }, () => Array.from({ length: likert }, () => Math.round(random() * 4) - 2))
  const favourite = Array.from({ length: groups }, (_, g) => g % 3)
  const columns: OpinionColumn[] = [
    ...Array.from({ length: likert }, (_, j) => ({ key: `q${j}`, kind: 'likert' as const, question: j })),
    ...[0, 1, 2].map((c) => ({ key: `q${likert}:c${c}`, kind: 'choice' as const, question: likert })),
  ]
  const accountIds: number[] = []
  const planted: number[] = []
  const participant: number[] = []
  const column: number[] = []
  const value: number[] = []
  for (let i = 0; i < participants; i++) {
    let pick = random() * total
    let g = 0
    while (pick >= shares[g] && g < groups - 1) pick -= shares[g++]
    planted.push(g)
    accountIds.push(1000 + ((i * 7919) % 100003))
    for (let j = 0; j < likert; j++) {
      if (random() > answerRate) continue
      const noisy = leaning[g][j] + (random() + random() + random() - 1.5) * 1.6
      participant.push(i)
      column.push(j)
      value.push(Math.max(-2, Math.min(2, Math.round(noisy))))
    }
    if (random() < answerRate) {
      const chosen = random() < 0.7 ? favourite[g] : Math.floor(random() * 3)
      for (let c = 0; c < 3; c++) {
        participant.push(i)
        column.push(likert + c)
        value.push(c === chosen ? 1 : 0)
      }
    }
  }
  return { input: { accountIds, columns, answers: { participant, column, value } }, planted }
}

/** The same conversation with the participant indices and the answers in another (seeded) order. */
export function shuffled(input: OpinionInput, seed: number): OpinionInput {
  const random = seededRandom(seed)
  const permutation = (n: number) => {
    const order = Array.from({ length: n }, (_, i) => i)
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    return order
  }
  const n = input.accountIds.length
  const newIndex = permutation(n)
  const accountIds = new Array<number>(n)
  for (let i = 0; i < n; i++) accountIds[newIndex[i]] = input.accountIds[i]
  const answers = permutation(input.answers.participant.length)
  const { participant, column, value } = input.answers
  return {
    accountIds,
    columns: input.columns,
    answers: {
      participant: Int32Array.from(answers, (a) => newIndex[participant[a]]),
      column: Int32Array.from(answers, (a) => column[a]),
      value: Float64Array.from(answers, (a) => value[a]),
    },
  }
}
