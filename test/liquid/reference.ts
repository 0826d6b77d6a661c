/**
 * A naive resolver of the liquid figures, written apart from the service's (R1-R8 of
 * docs/liquid-democracy.md), straight from the rules: every user walks their own chain.
 */
export interface RefAnswer {
  value: number | null
  choiceId: number | null
  private: boolean
}
export interface RefDelegation {
  id: number
  userId: number
  trusteeId: number | null
  tagId: number | null
  questionId: number | null
  priority: number
}
export interface RefQuestion {
  id: number
  tags: number[]
  choiceIds: number[]
}
export interface RefWorld {
  users: number[]
  active: Set<number>
  answers: Map<string, RefAnswer> // `${question}:${user}`
  delegations: RefDelegation[] // active ones only
}

/** Counts per level 1..5 and skips, for the question (likert) or each choice (mcq). */
export type RefFigures = Map<string, number[]> // 'question' | `choice:${id}` -> [c1..c5, skipped]

function winner(world: RefWorld, question: RefQuestion, user: number): RefDelegation | null {
  if (!world.active.has(user)) return null
  const own = world.delegations.filter((d) => d.userId === user)
  const onQuestion = own.find((d) => d.questionId === question.id)
  if (onQuestion) return onQuestion
  const onTags = own.filter((d) => d.tagId !== null && question.tags.includes(d.tagId))
  const rank = (d: RefDelegation) => [question.tags.indexOf(d.tagId!) === 0 ? 0 : 1, d.priority, question.tags.indexOf(d.tagId!), d.id]
  onTags.sort((a, b) => {
    const [x, y] = [rank(a), rank(b)]
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i]
    return 0
  })
  return onTags[0] ?? null
}

/** Whom the user's weight reaches on the question: an answering user whose answer carries, or null. */
export function representativeOf(world: RefWorld, question: RefQuestion, user: number): number | null {
  const seen = new Set<number>([user])
  let current = winner(world, question, user)?.trusteeId ?? null
  while (current !== null && !seen.has(current)) {
    const answer = world.answers.get(`${question.id}:${current}`)
    if (answer) return !answer.private && world.active.has(current) ? current : null
    seen.add(current)
    current = winner(world, question, current)?.trusteeId ?? null
  }
  return null
}

export function referenceFigures(world: RefWorld, question: RefQuestion): RefFigures {
  const figures: RefFigures = new Map([['question', [0, 0, 0, 0, 0, 0]]])
  for (const choice of question.choiceIds) figures.set(`choice:${choice}`, [0, 0, 0, 0, 0, 0])
  const weight = new Map<number, number>()
  for (const user of world.users) {
    if (world.answers.has(`${question.id}:${user}`)) {
      weight.set(user, (weight.get(user) ?? 0) + 1)
      continue
    }
    const representative = representativeOf(world, question, user)
    if (representative !== null) weight.set(representative, (weight.get(representative) ?? 0) + 1)
  }
  for (const [user, w] of weight) {
    const answer = world.answers.get(`${question.id}:${user}`)!
    const row = figures.get(answer.choiceId === null ? 'question' : `choice:${answer.choiceId}`)!
    row[answer.value === null ? 5 : answer.value - 1] += w
  }
  return figures
}
