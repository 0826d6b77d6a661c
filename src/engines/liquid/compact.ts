import { DELEGATION_ORDER, delegationRank, type DelegationKey } from '../../db/delegation-order.ts'

/**
 * The full resolution of many questions over one compact copy of the tag delegations (R1-R8 of
 * docs/liquid-democracy.md), in typed arrays indexed by user id. Arrays are stamped per question instead
 * of cleared, so each question costs O(its answers + its applicable delegations). Pure: no I/O.
 */
export interface DelegationList {
  users: Int32Array
  /** -1 for a block. */
  trustees: Int32Array
  priorities: Int32Array
  ids: Int32Array
}

export interface QuestionInput {
  answerUsers: Int32Array
  /** 1 where the answer carries delegated weight (public, by an active account). */
  answerCarries: Uint8Array
  questionDelegations: DelegationList
  /** The tag delegations of each of the question's tags, topic first. */
  tagDelegations: DelegationList[]
}

const NONE = -1
const WALKING = -2

export class CompactResolver {
  private stamp = 0
  private readonly answerStamp: Int32Array
  private readonly answerIndex: Int32Array
  private readonly carries: Uint8Array
  private readonly bestStamp: Int32Array
  /** The winning delegation's keys so far, per user, one array per key of DELEGATION_ORDER. */
  private readonly best: Record<DelegationKey, Int32Array>
  private readonly candidate: Record<DelegationKey, number> = { rank: 0, priority: 0, position: 0, id: 0 }
  private readonly bestTrustee: Int32Array
  private readonly repStamp: Int32Array
  private readonly rep: Int32Array
  private readonly blockStamp: Int32Array
  private readonly pointing: Int32Array
  private readonly intree: Int32Array
  private delegators: Int32Array<ArrayBuffer> = new Int32Array(1024)
  private delegatorCount = 0
  private path: Int32Array<ArrayBuffer> = new Int32Array(1024)

  constructor(readonly maxUserId: number) {
    const size = maxUserId + 1
    this.answerStamp = new Int32Array(size)
    this.answerIndex = new Int32Array(size)
    this.carries = new Uint8Array(size)
    this.bestStamp = new Int32Array(size)
    this.best = Object.fromEntries(DELEGATION_ORDER.map((key) => [key, new Int32Array(size)])) as Record<DelegationKey, Int32Array>
    this.bestTrustee = new Int32Array(size)
    this.repStamp = new Int32Array(size)
    this.rep = new Int32Array(size)
    this.blockStamp = new Int32Array(size)
    this.pointing = new Int32Array(size)
    this.intree = new Int32Array(size)
  }

  /** Negative when the candidate wins over the user's best so far, in DELEGATION_ORDER. */
  private compareWithBest(candidate: Record<DelegationKey, number>, user: number): number {
    for (const key of DELEGATION_ORDER) {
      const difference = candidate[key] - this.best[key][user]
      if (difference !== 0) return difference
    }
    return 0
  }

  /** The weight of each answer, aligned with `answerUsers`. */
  resolve(input: QuestionInput): Int32Array {
    const stamp = ++this.stamp
    const { answerUsers, answerCarries } = input
    for (let i = 0; i < answerUsers.length; i++) {
      const user = answerUsers[i]
      this.answerStamp[user] = stamp
      this.answerIndex[user] = i
      this.carries[user] = answerCarries[i]
    }
    let count = 0
    const candidate = this.candidate
    const consider = (list: DelegationList, rank: number, position: number) => {
      for (let j = 0; j < list.users.length; j++) {
        const user = list.users[j]
        if (this.answerStamp[user] === stamp) continue
        candidate.rank = rank
        candidate.priority = list.priorities[j]
        candidate.position = position
        candidate.id = list.ids[j]
        if (this.bestStamp[user] === stamp) {
          if (this.compareWithBest(candidate, user) >= 0) continue
        } else {
          this.bestStamp[user] = stamp
          if (count === this.delegators.length) this.delegators = grow(this.delegators)
          this.delegators[count++] = user
        }
        for (const key of DELEGATION_ORDER) this.best[key][user] = candidate[key]
        this.bestTrustee[user] = list.trustees[j]
      }
    }
    consider(input.questionDelegations, delegationRank('question', 0), 0)
    input.tagDelegations.forEach((list, position) => consider(list, delegationRank('tag', position), position))

    this.delegatorCount = count
    const weights = new Int32Array(answerUsers.length).fill(1)
    for (let d = 0; d < count; d++) {
      const sink = this.representative(this.delegators[d], stamp)
      if (sink !== NONE) weights[this.answerIndex[sink]]++
    }
    return weights
  }

  /**
   * After `resolve`: every user whose block (the unanswered users whose chains pass through them, as liquid_intree
   * counts it) holds at least `minimum` people, with its size. Sizes flow up the delegation forest from its leaves
   * (Kahn's order); what is left is loops, where each member carries the whole loop and what hangs from it, but
   * itself.
   */
  blocks(minimum: number): { users: number[]; sizes: number[] } {
    const stamp = this.stamp
    const touched: number[] = []
    const touch = (user: number) => {
      if (this.blockStamp[user] === stamp) return
      this.blockStamp[user] = stamp
      this.pointing[user] = 0
      this.intree[user] = 0
      touched.push(user)
    }
    const delegates = (user: number) => this.bestStamp[user] === stamp && this.answerStamp[user] !== stamp
    for (let d = 0; d < this.delegatorCount; d++) {
      const user = this.delegators[d]
      touch(user)
      const trustee = this.bestTrustee[user]
      if (trustee === NONE) continue
      touch(trustee)
      this.pointing[trustee]++
    }
    const ready: number[] = []
    for (let d = 0; d < this.delegatorCount; d++) if (this.pointing[this.delegators[d]] === 0) ready.push(this.delegators[d])
    while (ready.length > 0) {
      const user = ready.pop()!
      const trustee = this.bestTrustee[user]
      if (trustee === NONE) continue
      this.intree[trustee] += 1 + this.intree[user]
      if (delegates(trustee) && --this.pointing[trustee] === 0) ready.push(trustee)
    }
    for (let d = 0; d < this.delegatorCount; d++) {
      const start = this.delegators[d]
      if (this.pointing[start] === 0) continue
      const loop: number[] = []
      let total = 0
      for (let user = start; this.pointing[user] !== 0; user = this.bestTrustee[user]) {
        this.pointing[user] = 0
        loop.push(user)
        total += 1 + this.intree[user]
      }
      for (const user of loop) this.intree[user] = total - 1
    }
    const users: number[] = []
    const sizes: number[] = []
    for (const user of touched) {
      if (this.intree[user] < minimum) continue
      users.push(user)
      sizes.push(this.intree[user])
    }
    return { users, sizes }
  }

  /** After `blocks`: the size of anyone's block (0 for someone nobody's chain passes through). */
  blockSize(user: number): number {
    return this.blockStamp[user] === this.stamp ? this.intree[user] : 0
  }

  /** Follows the chain from an unanswered delegator, memoising every user on it. */
  private representative(start: number, stamp: number): number {
    if (this.repStamp[start] === stamp) return this.rep[start]
    let length = 0
    let current = start
    let found = NONE
    for (;;) {
      if (this.answerStamp[current] === stamp) {
        found = this.carries[current] ? current : NONE
        break
      }
      if (this.repStamp[current] === stamp) {
        found = this.rep[current] === WALKING ? NONE : this.rep[current]
        break
      }
      if (this.bestStamp[current] !== stamp) break
      this.repStamp[current] = stamp
      this.rep[current] = WALKING
      if (length === this.path.length) this.path = grow(this.path)
      this.path[length++] = current
      const next = this.bestTrustee[current]
      if (next === NONE) break
      current = next
    }
    for (let i = 0; i < length; i++) this.rep[this.path[i]] = found
    return found
  }
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}

export const EMPTY_LIST: DelegationList = {
  users: new Int32Array(0),
  trustees: new Int32Array(0),
  priorities: new Int32Array(0),
  ids: new Int32Array(0),
}
