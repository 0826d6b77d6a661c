/**
 * Which of a user's delegations on a question wins (docs/liquid-democracy.md, R2): the first in DELEGATION_ORDER.
 * One definition for both languages: the database's liquid_delegations (migration 045, behind liquid_parent and
 * every chain walk) is built from it, and so is the bulk engine's comparison (src/engines/liquid/compact.ts).
 *
 * - rank: a delegation on the question itself, then one on the question's topic (its first tag), then the others;
 * - priority: the user's own order of their tag delegations, lowest first (0 for a question delegation);
 * - position: the tag's place on the question;
 * - id: the oldest delegation.
 */
export const DELEGATION_ORDER = ['rank', 'priority', 'position', 'id'] as const
export type DelegationKey = (typeof DELEGATION_ORDER)[number]

const RANK = { question: 0, topic: 1, tag: 2 } as const

/** The rank of a delegation on the question itself (`question`) or on its tag at `position`. */
export function delegationRank(kind: 'question' | 'tag', position: number): number {
  return kind === 'question' ? RANK.question : position === 0 ? RANK.topic : RANK.tag
}

/** The same rank over SQL column expressions (`kind` is 'question' or 'tag'). */
export const DELEGATION_RANK_SQL = (kind: string, position: string) =>
  `CASE WHEN ${kind} = 'question' THEN ${RANK.question} WHEN ${position} = 0 THEN ${RANK.topic} ELSE ${RANK.tag} END`

/** ORDER BY terms over a row that has the keys as columns (`rank` computed by DELEGATION_RANK_SQL). */
export const DELEGATION_ORDER_SQL = (alias: string) => DELEGATION_ORDER.map((key) => `${alias}.${key}`).join(', ')
