/**
 * Resolves one question's delegations from scratch (R1-R8 of docs/liquid-democracy.md): pure, linear
 * in the answers and applicable delegations it is given. Used to rebuild and to check the weights the
 * incremental engine keeps; the figures follow from the weights.
 */
export interface ResolverAnswer {
  userId: number
  /** Public and by an active account: it carries the weight of those it represents. */
  carries: boolean
}

export interface ResolverDelegation {
  id: number
  userId: number
  trusteeId: number | null
  /** null for a question delegation; else the tag's position on the question (0 = topic). */
  position: number | null
  priority: number
}

/** Delegations of users who may delegate (active accounts), already limited to the question. */
export function resolveWeights(answers: ResolverAnswer[], delegations: ResolverDelegation[]): Map<number, number> {
  const answered = new Map(answers.map((answer) => [answer.userId, answer]))
  const parent = winningTrustees(delegations, answered)
  const representative = new Map<number, number | null>()
  const weight = new Map(answers.map((answer) => [answer.userId, 1]))
  for (const start of parent.keys()) {
    if (representative.has(start)) continue
    const path: number[] = []
    const onPath = new Set<number>()
    let current: number | null = start
    let found: number | null = null
    for (;;) {
      if (current === null || onPath.has(current)) break
      const answer = answered.get(current)
      if (answer) {
        found = answer.carries ? current : null
        break
      }
      if (representative.has(current)) {
        found = representative.get(current)!
        break
      }
      path.push(current)
      onPath.add(current)
      current = parent.get(current) ?? null
    }
    for (const user of path) representative.set(user, found)
  }
  for (const sink of representative.values()) if (sink !== null) weight.set(sink, weight.get(sink)! + 1)
  return weight
}

/** R2: the question delegation, else the topic's, else the user's own order, the tag's position, the oldest. */
export function winningTrustees(delegations: ResolverDelegation[], answered: Map<number, unknown>): Map<number, number | null> {
  const best = new Map<number, ResolverDelegation>()
  for (const delegation of delegations) {
    if (answered.has(delegation.userId)) continue
    const current = best.get(delegation.userId)
    if (!current || compareDelegations(delegation, current) < 0) best.set(delegation.userId, delegation)
  }
  return new Map([...best].map(([user, delegation]) => [user, delegation.trusteeId]))
}

function rankOf(delegation: ResolverDelegation): number {
  if (delegation.position === null) return 0
  return delegation.position === 0 ? 1 : 2
}

function compareDelegations(a: ResolverDelegation, b: ResolverDelegation): number {
  return rankOf(a) - rankOf(b) || a.priority - b.priority || (a.position ?? 0) - (b.position ?? 0) || a.id - b.id
}
