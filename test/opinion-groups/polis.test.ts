/**
 * Our groups against the groups Pol.is published for four of its open-data conversations (test/fixtures/polis), on
 * Pol.is's map as its code drew it (src/engines/opinion-groups/polis-map.ts): moderated-out and meta statements
 * zeroed and counted as answered, missing votes filled by the rule of the conversation's date. Over the
 * participants Pol.is grouped, at Pol.is's k, the adjusted Rand index (ARI) between its group-id and ours
 * (participants we do not cluster count with their nearest group, as the service shows them).
 *
 * Asserted: ubi and bowling-green agree at 0.85 and 0.8; on all four our groups are a true fixed point of k-means
 * (Lloyd's algorithm over the base clusters, from the groups' own centres, moves no base cluster) whose
 * within-group squares are no larger than Pol.is's groups' on the same map; ubi and bowling-green are stable
 * under 90 % subsamples; Pol.is's most consensual statements are among ours. Seattle's and football's agreement
 * and stability are reported, not asserted: football's groups depend on a history the export does not keep
 * (docs/opinion-groups.md).
 *
 * Bowling-green is drawn with the map of Pol.is's code before 2017-02-27 (moderated-out statements as ordinary
 * columns, missing votes 0), though its votes are from February 2018: on its date's map its published groups are
 * no k-means fixed point (0.42), on the older map they are (0.85). The export does not say which code computed
 * them; `civic-survey opinion-groups --polis-code` draws a conversation with another version's map.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  adjustedRandIndex,
  computeOpinionGroups,
  groupInformedConsensus,
  placeAccount,
  type OpinionGroupOptions,
  type OpinionGroupsResult,
  type OpinionInput,
} from '../../src/engines/opinion-groups/index.ts'
import { lloyd } from '../../src/engines/opinion-groups/kmeans.ts'
import { seededRandom } from '../helpers/random.ts'
import { loadPolisConversation, type PolisConversation } from './polis-data.ts'

interface Case {
  name: string
  /** The date of the Pol.is code whose map is drawn, when not the conversation's own. */
  code?: Date
  /** Asserted: the least ARI with Pol.is's groups at its k, and the least mean ARI of the subsamples. */
  agreement?: number
  stability?: number
}

const CASES: Case[] = [
  { name: 'scoop-hivemind.ubi', agreement: 0.85, stability: 0.85 },
  { name: 'american-assembly.bowling-green', code: new Date(Date.UTC(2017, 1, 26)), agreement: 0.8, stability: 0.85 },
  { name: '15-per-hour-seattle' },
  { name: 'football-concussions' },
]

const SUBSAMPLES = 5
const SUBSAMPLE_SHARE = 0.9
const CONSENSUS_LISTED = 5

/** ARI with Pol.is over the participants it grouped; ours is their group, or the nearest when not clustered. */
function agreementWithPolis(conversation: PolisConversation, result: OpinionGroupsResult): number {
  const theirs: number[] = []
  const ours: number[] = []
  for (const [account, group] of conversation.polisGroup) {
    theirs.push(group)
    ours.push(placeAccount(result, account)?.group ?? -1)
  }
  return adjustedRandIndex(theirs, ours)
}

/**
 * Lloyd's algorithm over the base clusters, weighted by their sizes, from the centres of the groups themselves: a
 * grouping k-means computed is left as it is. Answers how many base clusters changed group.
 */
function baseClustersMoved(result: OpinionGroupsResult): number {
  const { x, y, size, group } = result.baseClusters
  const labels = result.groups.map((g) => g.label)
  const centre = labels.map((label) => {
    let [sx, sy, n] = [0, 0, 0]
    group.forEach((g, b) => {
      if (g !== label) return
      sx += size[b] * x[b]
      sy += size[b] * y[b]
      n += size[b]
    })
    return { x: sx / n, y: sy / n }
  })
  const run = lloyd(
    { x: Float64Array.from(x), y: Float64Array.from(y), weight: Float64Array.from(size) },
    centre.map((c) => c.x),
    centre.map((c) => c.y),
    1000,
  )
  return group.filter((g, b) => labels[run.cluster[b]] !== g).length
}

/** Σ of squared distances to the own group's mean place, over the given participants (−1: left out). */
function withinSquares(x: number[], y: number[], group: number[]): number {
  const sums = new Map<number, { x: number; y: number; n: number }>()
  group.forEach((g, i) => {
    if (g < 0) return
    const s = sums.get(g) ?? sums.set(g, { x: 0, y: 0, n: 0 }).get(g)!
    s.x += x[i]
    s.y += y[i]
    s.n++
  })
  let squares = 0
  group.forEach((g, i) => {
    if (g < 0) return
    const s = sums.get(g)!
    squares += (x[i] - s.x / s.n) ** 2 + (y[i] - s.y / s.n) ** 2
  })
  return squares
}

/** Within-group squares of our groups and of Pol.is's, over the participants both grouped, on our map. */
function squaresAgainstPolis(conversation: PolisConversation, result: OpinionGroupsResult) {
  const { accountIds, x, y, group } = result.participants
  const both = accountIds.flatMap((account, i) => (group[i] >= 0 && conversation.polisGroup.has(account) ? [i] : []))
  const xs = both.map((i) => x[i])
  const ys = both.map((i) => y[i])
  return {
    ours: withinSquares(
      xs,
      ys,
      both.map((i) => group[i]),
    ),
    polis: withinSquares(
      xs,
      ys,
      both.map((i) => conversation.polisGroup.get(accountIds[i])!),
    ),
  }
}

/** A seeded share of the participants, with their answers. */
function subsample(input: OpinionInput, seed: number, share: number): OpinionInput {
  const random = seededRandom(seed)
  const keep = Array.from(input.accountIds, () => random() < share)
  const index = new Int32Array(keep.length).fill(-1)
  const accountIds: number[] = []
  keep.forEach((kept, p) => {
    if (!kept) return
    index[p] = accountIds.length
    accountIds.push(input.accountIds[p])
  })
  const { participant, column, value } = input.answers
  const entries = Array.from({ length: participant.length }, (_, a) => a).filter((a) => keep[participant[a]])
  return {
    accountIds,
    columns: input.columns,
    answers: {
      participant: entries.map((a) => index[participant[a]]),
      column: entries.map((a) => column[a]),
      value: entries.map((a) => value[a]),
    },
    zeroed: input.zeroed && {
      statements: input.zeroed.statements,
      answered: Array.from(input.zeroed.answered).filter((_, p) => keep[p]),
    },
  }
}

/** ARI between two results over the participants clustered in both. */
function agreementBetween(a: OpinionGroupsResult, b: OpinionGroupsResult): number {
  const groupOf = new Map(b.participants.accountIds.map((account, i) => [account, b.participants.group[i]]))
  const left: number[] = []
  const right: number[] = []
  a.participants.accountIds.forEach((account, i) => {
    const other = groupOf.get(account)
    if (a.participants.group[i] < 0 || other === undefined || other < 0) return
    left.push(a.participants.group[i])
    right.push(other)
  })
  return adjustedRandIndex(left, right)
}

const topColumns = (scores: number[], shown: (j: number) => boolean, n: number) =>
  scores
    .map((score, j) => ({ score, j }))
    .filter(({ j }) => shown(j))
    .sort((a, b) => b.score - a.score || a.j - b.j)
    .slice(0, n)
    .map(({ j }) => j)

/**
 * The statements Pol.is's groups agree on most: group-informed consensus, ∏ over its groups of (agree + 1) / (seen +
 * 2), from the exported votes of the participants it grouped; moderated-out and meta statements are never listed.
 */
function polisConsensus(conversation: PolisConversation): number[] {
  const labels = [...new Set(conversation.polisGroup.values())].sort((a, b) => a - b)
  const { accountIds, columns, answers } = conversation.input
  const agree = labels.map(() => new Int32Array(columns.length))
  const seen = labels.map(() => new Int32Array(columns.length))
  for (let a = 0; a < answers.participant.length; a++) {
    const group = conversation.polisGroup.get(accountIds[answers.participant[a]])
    if (group === undefined) continue
    const g = labels.indexOf(group)
    seen[g][answers.column[a]]++
    if (answers.value[a] > 0) agree[g][answers.column[a]]++
  }
  const scores = columns.map((_, j) => groupInformedConsensus(agree, seen, j))
  return topColumns(scores, (j) => !conversation.hiddenColumns.has(j), CONSENSUS_LISTED)
}

/** How many of Pol.is's five most consensual statements are among our ten, by conversation. */
const consensusFound = new Map<string, number>()

for (const { name, code, agreement, stability } of CASES) {
  test(`${name}: our groups against Pol.is's, on its map`, async (t) => {
    const conversation = loadPolisConversation(name, code)
    const k = conversation.groups
    const options: OpinionGroupOptions = { map: conversation.code.map }
    const atPolisK = computeOpinionGroups(conversation.input, { ...options, groupCount: k })
    const ours = computeOpinionGroups(conversation.input, options)
    const ari = agreementWithPolis(conversation, atPolisK)
    const clustered = atPolisK.participants.group.filter((g) => g >= 0).length
    t.diagnostic(
      `${name}: map ${JSON.stringify(conversation.code)}${code ? ` (Pol.is's code of ${code.toISOString().slice(0, 10)})` : ''}; ` +
        `Pol.is k = ${k}, ${conversation.polisGroup.size} grouped; ${clustered} clustered; ` +
        `ARI at Pol.is's k ${ari.toFixed(3)}; our own k = ${ours.groupCount.k}, ARI ${agreementWithPolis(conversation, ours).toFixed(3)}`,
    )
    assert.equal(atPolisK.groupCount.k, k)

    await t.test("at Pol.is's k, a true fixed point of k-means, with squares no larger than Pol.is's groups'", () => {
      assert.equal(baseClustersMoved(atPolisK), 0)
      const squares = squaresAgainstPolis(conversation, atPolisK)
      t.diagnostic(`${name}: within-group squares ${squares.ours.toFixed(1)}, Pol.is's groups ${squares.polis.toFixed(1)}`)
      assert.ok(squares.ours <= squares.polis, `${squares.ours} > ${squares.polis}`)
    })

    await t.test(agreement ? `ARI ≥ ${agreement} at Pol.is's k` : "ARI at Pol.is's k, reported", () => {
      if (agreement) assert.ok(ari >= agreement, `ARI ${ari.toFixed(3)}`)
    })

    await t.test(
      stability ? `mean ARI ≥ ${stability} against ${SUBSAMPLES} subsamples of 90 %` : 'stability under subsamples, reported',
      () => {
        const aris = Array.from({ length: SUBSAMPLES }, (_, s) =>
          agreementBetween(
            atPolisK,
            computeOpinionGroups(subsample(conversation.input, 100 + s, SUBSAMPLE_SHARE), { ...options, groupCount: k }),
          ),
        )
        const mean = aris.reduce((sum, a) => sum + a, 0) / aris.length
        t.diagnostic(`${name}: subsamples ${aris.map((a) => a.toFixed(3)).join(', ')}; mean ${mean.toFixed(3)}`)
        if (stability) assert.ok(mean >= stability, `mean ARI ${mean.toFixed(3)}`)
      },
    )

    await t.test(`Pol.is's ${CONSENSUS_LISTED} most consensual statements: at least 3 among our ${2 * CONSENSUS_LISTED}`, () => {
      const theirs = polisConsensus(conversation)
      const shown = (j: number) => !conversation.hiddenColumns.has(j)
      const ourTen = topColumns(atPolisK.perColumn.groupInformedConsensus, shown, 2 * CONSENSUS_LISTED)
      const found = theirs.filter((j) => ourTen.includes(j)).length
      consensusFound.set(name, found)
      t.diagnostic(`${name}: ${found} of Pol.is's top ${CONSENSUS_LISTED} in our top ${2 * CONSENSUS_LISTED}`)
      assert.ok(found >= 3, `${found} of ${CONSENSUS_LISTED}`)
    })
  })
}

test(`Pol.is's ${CONSENSUS_LISTED} most consensual statements are all among our ${2 * CONSENSUS_LISTED} on at least three of the four`, () => {
  assert.equal(consensusFound.size, CASES.length)
  const complete = [...consensusFound.values()].filter((found) => found === CONSENSUS_LISTED).length
  assert.ok(complete >= 3, JSON.stringify([...consensusFound]))
})
