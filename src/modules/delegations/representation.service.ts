import { iso } from '../../core/time.ts'
import { representationRepository, type Hop } from './representation.repository.ts'
import type { Outcome, RepresentativeAnswer, WinningDelegation } from './representation.schemas.ts'
import type { Db } from '../../db/types.ts'

/** Where one user's vote on a question goes, with user ids; the route turns ids into reduced users. */
export interface Resolution {
  outcome: Outcome
  delegation: WinningDelegation | null
  chain: number[]
  representative: number | null
  representativeAnswer: RepresentativeAnswer | null
}

function delegationOf(hop: Hop): WinningDelegation | null {
  const d = hop.delegation
  return d === null ? null : { kind: d.kind, id: d.id, tag: d.tagId, trustee: d.trusteeId }
}

/**
 * Follows the user's chain on the question, one small statement per hop (rules R1-R5, R9): an answer
 * ends it (it carries the weight only when public), a block or someone who neither answered nor
 * delegates ends it, a deactivated or deleted account is a dead end, and a repeat is a loop. At each hop
 * the trustee's own winning delegation for this question is used. A trustee's answer counts as the published
 * figures count it (migration 038): while a change of their private answer is unreleased, as the answer they had
 * (a private one) or none, so that the representation changes with a batch of k private answers, never at the
 * moment one of them was given.
 */
export async function resolveRepresentation(db: Db, questionId: number, userId: number): Promise<Resolution> {
  const repository = representationRepository(db)
  const start = (await repository.hop(questionId, userId))!
  const delegation = delegationOf(start)
  const result = (
    outcome: Outcome,
    chain: number[] = [],
    representative: number | null = null,
    answer: RepresentativeAnswer | null = null,
  ): Resolution => ({
    outcome,
    delegation,
    chain,
    representative,
    representativeAnswer: answer,
  })
  if (start.answer) return result('own_answer')
  if (!start.delegation) return result('no_delegation')
  if (start.delegation.trusteeId === null) return result('blocked')
  const visited = new Set<number>([userId])
  const chain: number[] = []
  let next: number = start.delegation.trusteeId
  for (;;) {
    chain.push(next)
    if (visited.has(next)) return result('loop', chain)
    visited.add(next)
    const hop = await repository.hop(questionId, next)
    if (!hop || !hop.eligible) return result('dead_end', chain)
    if (hop.released === 'private') return result('private_answer', chain, next)
    if (hop.answer && hop.released === null) {
      if (hop.answer.private) return result('private_answer', chain, next)
      const { objectId, value, skipped, modifiedAt } = hop.answer
      return result('represented', chain, next, { value, object_id: objectId, skipped, modified_at: iso(modifiedAt) })
    }
    if (!hop.delegation) return result('dead_end', chain)
    if (hop.delegation.trusteeId === null) return result('blocked', chain)
    next = hop.delegation.trusteeId
  }
}
