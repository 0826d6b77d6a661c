/**
 * The opinion-groups pipeline on seeded synthetic conversations with planted groups: the sparse products against a
 * dense computation, the planted groups found, the same result whatever the input order, warm starts that keep the
 * groups and their labels, the result surviving JSON, and the columns built from questions.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  adjustedRandIndex,
  computeOpinionGroups,
  nearestGroup,
  opinionInput,
  placeAccount,
  polisCodeAt,
  projectParticipants,
  type OpinionGroupsResult,
} from '../../src/engines/opinion-groups/index.ts'
import { buildOpinionMatrix } from '../../src/engines/opinion-groups/matrix.ts'
import { gramTimes, scores } from '../../src/engines/opinion-groups/pca.ts'
import { plantedConversation, shuffled } from './synthetic.ts'

test('the sparse product equals CᵀC v of the dense filled, centred matrix', () => {
  const { input } = plantedConversation(3, 40, 8, [1, 1], 0.5)
  const m = buildOpinionMatrix(input)
  const rowOf = new Map(Array.from(m.accountIds, (id, row) => [id, row]))
  // Dense: missing cells filled with the column mean, then every column centred on its mean.
  const dense = Array.from({ length: m.rows }, () => new Array<number>(m.columns).fill(NaN))
  const { participant, column, value } = input.answers
  for (let a = 0; a < participant.length; a++) dense[rowOf.get(input.accountIds[participant[a]])!][column[a]] = value[a]
  for (let j = 0; j < m.columns; j++) {
    const answered = dense.map((row) => row[j]).filter((v) => !Number.isNaN(v))
    const mean = answered.reduce((s, v) => s + v, 0) / answered.length
    for (const row of dense) row[j] = Number.isNaN(row[j]) ? 0 : row[j] - mean
  }
  const v = Float64Array.from({ length: m.columns }, (_, j) => Math.sin(j + 1))
  const out = new Float64Array(m.columns)
  gramTimes(m, v, out)
  const cv = dense.map((row) => row.reduce((s, c, j) => s + c * v[j], 0))
  const expected = Array.from({ length: m.columns }, (_, j) => dense.reduce((s, row, i) => s + row[j] * cv[i], 0))
  expected.forEach((e, j) => assert.ok(Math.abs(out[j] - e) < 1e-9, `column ${j}: ${out[j]} against ${e}`))
  scores(m, v).forEach((s, i) => assert.ok(Math.abs(s - cv[i]) < 1e-12))
})

test('the planted groups are found, with their number', (t) => {
  for (const [seed, shares] of [
    [1, [3, 2, 1]],
    [2, [1, 1]],
    [4, [2, 2, 1, 1]],
  ] as const) {
    const { input, planted } = plantedConversation(seed, 900, 30, [...shares])
    const result = computeOpinionGroups(input)
    const ours = result.participants.group
    const rowOf = new Map(result.participants.accountIds.map((id, row) => [id, row]))
    const theirs = planted.map((_, i) => ours[rowOf.get(input.accountIds[i] as number)!])
    const ari = adjustedRandIndex(planted, theirs)
    t.diagnostic(`${shares.length} planted groups: k = ${result.groupCount.k}, ARI ${ari.toFixed(3)}`)
    assert.equal(result.groupCount.k, shares.length)
    assert.ok(ari >= 0.9, `ARI ${ari}`)
    assert.ok(result.pca.converged)
    assert.deepEqual(
      result.groups.map((g) => g.label),
      shares.map((_, g) => g),
    )
    for (let g = 1; g < result.groups.length; g++) assert.ok(result.groups[g - 1].size >= result.groups[g].size, 'labelled by size')
  }
})

test('the same answers in any order give the same result', () => {
  const { input } = plantedConversation(5, 500, 20, [2, 1, 1])
  const first = computeOpinionGroups(input)
  for (const seed of [1, 2]) assert.deepEqual(computeOpinionGroups(shuffled(input, seed)), first)
})

test('the result survives JSON unchanged', () => {
  const result = computeOpinionGroups(plantedConversation(6, 300, 12, [1, 1]).input)
  assert.deepEqual(JSON.parse(JSON.stringify(result)), result)
})

const previousOf = (result: OpinionGroupsResult): OpinionGroupsResult => JSON.parse(JSON.stringify(result))

test('a warm start on the same answers gives the same groups and labels', () => {
  const { input } = plantedConversation(7, 800, 25, [3, 2, 1])
  const cold = computeOpinionGroups(input)
  const warm = computeOpinionGroups(input, { previous: previousOf(cold) })
  assert.equal(warm.rules.pca.start, 'warm')
  assert.ok(warm.pca.iterations <= 3 && cold.pca.iterations > 3, `warm ${warm.pca.iterations} against cold ${cold.pca.iterations}`)
  assert.deepEqual(warm.participants.group, cold.participants.group)
  assert.deepEqual(
    warm.groups.map((g) => [g.label, g.size, g.agree, g.representative.map((r) => r.column)]),
    cold.groups.map((g) => [g.label, g.size, g.agree, g.representative.map((r) => r.column)]),
  )
  assert.equal(warm.stability.adjustedRandIndex, 1)
  assert.equal(warm.stability.labelsKept, cold.groupCount.k)
  assert.deepEqual(warm.groupCount.smoothing, { bestK: 3, bestKRuns: 2, k: 3 })
})

test('labels follow the previous groups, and the change is measured', () => {
  const { input } = plantedConversation(8, 600, 20, [2, 1, 1])
  const first = computeOpinionGroups(input)
  // The same groups under other labels: 0 → 7, 1 → 3, 2 → 0.
  const renamed = previousOf(first)
  const rename = new Map([
    [0, 7],
    [1, 3],
    [2, 0],
  ])
  renamed.participants.group = renamed.participants.group.map((g) => (g < 0 ? g : rename.get(g)!))
  const again = computeOpinionGroups(input, { previous: renamed })
  assert.deepEqual(again.participants.group, renamed.participants.group)
  assert.deepEqual(
    again.groups.map((g) => g.label),
    [0, 3, 7],
  )

  // More people answer: the groups keep their labels and the index says how much they moved.
  const grown = plantedConversation(8, 700, 20, [2, 1, 1]).input
  const next = computeOpinionGroups(grown, { previous: previousOf(first) })
  assert.equal(next.stability.participantsCompared, first.participants.group.filter((g) => g >= 0).length)
  assert.ok(next.stability.adjustedRandIndex! > 0.8, `ARI ${next.stability.adjustedRandIndex}`)
  const before = new Map(first.participants.accountIds.map((id, i) => [id, first.participants.group[i]]))
  let same = 0
  next.participants.accountIds.forEach((id, i) => {
    if (before.get(id) === next.participants.group[i] && next.participants.group[i] >= 0) same++
  })
  assert.ok(same >= 0.9 * next.stability.participantsCompared, `${same} kept their label`)
})

test('a forced number of groups, and one group when none is possible', () => {
  const { input } = plantedConversation(9, 400, 20, [1, 1])
  const forced = computeOpinionGroups(input, { groupCount: 4 })
  assert.equal(forced.groupCount.k, 4)
  assert.equal(forced.groups.length, 4)
  const tiny = computeOpinionGroups(plantedConversation(10, 8, 10, [1, 1], 1).input)
  assert.equal(tiny.groupCount.k, 1)
  assert.equal(tiny.groupCount.best, null)
  assert.equal(tiny.groups[0].size, 8)
  assert.deepEqual(tiny.perColumn.divisiveness, new Array(tiny.columnKeys.length).fill(0))
  const empty = computeOpinionGroups({ accountIds: [], columns: [], answers: { participant: [], column: [], value: [] } })
  assert.equal(empty.groupCount.k, 0)
  assert.deepEqual(empty.groups, [])
})

test('two camps whose members answer alike within each are two groups', () => {
  // Every member of a camp sits at one point: two distinct places, so two base clusters.
  const questions = Array.from({ length: 8 }, (_, q) => ({ id: q + 1, kind: 'likert' as const }))
  const accountId: number[] = []
  const questionId: number[] = []
  const value: number[] = []
  for (let person = 0; person < 20; person++)
    for (let q = 0; q < 8; q++) {
      accountId.push(100 + person)
      questionId.push(q + 1)
      const campA = person % 2 === 0
      value.push(q < 4 === campA ? 5 : 1)
    }
  const result = computeOpinionGroups(opinionInput(questions, { accountId, questionId, value }))
  assert.equal(result.baseClusters.x.length, 2)
  assert.equal(result.groupCount.k, 2)
  assert.deepEqual(
    result.groups.map((g) => g.size),
    [10, 10],
  )
})

test('an account with few answers is placed in the nearest group', () => {
  const { input } = plantedConversation(11, 300, 20, [1, 1])
  const participant = [...Array.from(input.answers.participant), 300, 300]
  const result = computeOpinionGroups({
    accountIds: [...Array.from(input.accountIds), 999_999_999],
    columns: input.columns,
    answers: { participant, column: [...Array.from(input.answers.column), 0, 1], value: [...Array.from(input.answers.value), 2, 2] },
  })
  const sparse = placeAccount(result, 999_999_999)!
  assert.equal(sparse.nearest, true)
  assert.equal(sparse.group, nearestGroup(result, sparse.x, sparse.y))
  const member = result.participants.group.findIndex((g) => g >= 0)
  assert.deepEqual(placeAccount(result, result.participants.accountIds[member]), {
    x: result.participants.x[member],
    y: result.participants.y[member],
    group: result.participants.group[member],
    nearest: false,
  })
  assert.equal(placeAccount(result, -5), null)
})

test('projecting answers on a fitted model gives back the fitted places, whatever the order of the answers', () => {
  const { input } = plantedConversation(12, 200, 12, [1, 2])
  const result = computeOpinionGroups(input)
  // Everyone's answers, projected on the model fitted on them, backwards.
  const reversed = (values: ArrayLike<number>) => Array.from(values).reverse()
  const projected = projectParticipants(result, {
    accountIds: input.accountIds,
    columns: input.columns,
    answers: {
      participant: reversed(input.answers.participant),
      column: reversed(input.answers.column),
      value: reversed(input.answers.value),
    },
  })
  assert.deepEqual(projected.accountIds, result.participants.accountIds)
  projected.x.forEach((x, i) =>
    assert.ok(Math.abs(x - result.participants.x[i]) < 1e-12, `x of ${i}: ${x} against ${result.participants.x[i]}`),
  )
  projected.y.forEach((y, i) => assert.ok(Math.abs(y - result.participants.y[i]) < 1e-12, `y of ${i}`))
  // Someone new, answering as the first participant did, lands on their place; a column the model lacks moves nobody.
  const first = Array.from(input.answers.participant).flatMap((p, a) => (p === 0 ? [a] : []))
  const columns = [...input.columns, { key: 'q-new', kind: 'likert' as const, question: -1 }]
  const newcomer = projectParticipants(result, {
    accountIds: [1e9],
    columns,
    answers: {
      participant: first.map(() => 0),
      column: first.map((a) => input.answers.column[a]),
      value: first.map((a) => input.answers.value[a]),
    },
  })
  const row = result.participants.accountIds.indexOf(Number(input.accountIds[0]))
  assert.ok(Math.abs(newcomer.x[0] - result.participants.x[row]) < 1e-12)
  assert.equal(
    nearestGroup(result, newcomer.x[0], newcomer.y[0]),
    nearestGroup(result, result.participants.x[row], result.participants.y[row]),
  )
})

test('columns from questions: likert rating − 3, one 0/1 column per choice', () => {
  const input = opinionInput(
    [
      { id: 5, kind: 'likert' },
      { id: 2, kind: 'choice', choices: [30, 10, 20] },
    ],
    { accountId: [41, 41, 40], questionId: [5, 2, 5], value: [4, 10, 1] },
  )
  assert.deepEqual(input.columns, [
    { key: 'q5', kind: 'likert', question: 5 },
    { key: 'q2:c30', kind: 'choice', question: 2 },
    { key: 'q2:c10', kind: 'choice', question: 2 },
    { key: 'q2:c20', kind: 'choice', question: 2 },
  ])
  assert.deepEqual(input.accountIds, [41, 40])
  assert.deepEqual(Array.from(input.answers.participant), [0, 0, 0, 0, 1])
  assert.deepEqual(Array.from(input.answers.column), [0, 1, 2, 3, 0])
  assert.deepEqual(Array.from(input.answers.value), [1, 0, 1, 0, -2])
  assert.throws(() => opinionInput([{ id: 5, kind: 'likert' }], { accountId: [1], questionId: [5], value: [6] }), RangeError)
  // A choice question answered counts once towards the answered questions, however many columns it fills.
  assert.deepEqual(buildOpinionMatrix(input).answeredQuestions, Int32Array.from([1, 2]))
})

test('bad input is refused', () => {
  const columns = [{ key: 'a', kind: 'choice' as const, question: 1 }]
  const refuse = (accountIds: number[], participant: number[], column: number[], value: number[]) =>
    assert.throws(() => computeOpinionGroups({ accountIds, columns, answers: { participant, column, value } }), RangeError)
  refuse([1, 1], [0], [0], [1])
  refuse([1], [0, 0], [0, 0], [1, 0])
  refuse([1], [0], [0], [0.5])
  refuse([1], [1], [0], [1])
  refuse([1], [0], [1], [1])
})

test('zeroed statements count as answered by everyone in the scaling, and toward who is grouped', () => {
  const { input } = plantedConversation(6, 60, 10, [1, 1], 0.6)
  const plain = computeOpinionGroups(input)
  const answered = Array.from(input.accountIds, (_, p) => p % 3)
  const zeroed = computeOpinionGroups({ ...input, zeroed: { statements: 4, answered } })
  assert.equal(zeroed.pca.zeroedStatements, 4)
  assert.deepEqual(zeroed.pca.components, plain.pca.components)
  const m = buildOpinionMatrix(input)
  plain.participants.x.forEach((x, row) => {
    const n = m.rowStart[row + 1] - m.rowStart[row]
    const expected = n === 0 ? 0 : (x / Math.sqrt(m.activeColumns / n)) * Math.sqrt((m.activeColumns + 4) / (n + 4))
    assert.ok(Math.abs(zeroed.participants.x[row] - expected) < 1e-12, `row ${row}`)
  })
  // Someone who answered one question and a zeroed statement: grouped only when the zeroed ones count for everyone.
  const columns = Array.from({ length: 8 }, (_, j) => ({ key: `c${j}`, kind: 'likert' as const, question: j }))
  const people = 20
  const entries = Array.from({ length: people * 8 }, (_, e) => ({ p: Math.floor(e / 8), j: e % 8 })).filter(({ p, j }) => p > 0 || j === 0)
  const sparse = {
    accountIds: Array.from({ length: people }, (_, p) => 100 + p),
    columns,
    answers: { participant: entries.map((e) => e.p), column: entries.map((e) => e.j), value: entries.map((e) => ((e.p + e.j) % 5) - 2) },
    zeroed: { statements: 7, answered: Array.from({ length: people }, (_, p) => (p === 0 ? 1 : 0)) },
  }
  const groupOfFirst = (zeroedCountAsAnswered: boolean) =>
    computeOpinionGroups(sparse, { map: { missing: 'mean', zeroedCountAsAnswered }, minClustered: 1 }).participants.group[0]
  assert.equal(groupOfFirst(false), -1)
  assert.ok(groupOfFirst(true) >= 0)
})

test("Pol.is's code by date: zeroed statements from 2017-02-27, mean fill from 2017-10-22, zeroed counted until 2017-10-31", () => {
  const at = (date: string) => polisCodeAt(new Date(`${date}T12:00:00Z`))
  assert.deepEqual(at('2016-12-01'), { hidden: 'columns', map: { missing: 'zero', zeroedCountAsAnswered: false } })
  assert.deepEqual(at('2017-08-23'), { hidden: 'zeroed', map: { missing: 'zero', zeroedCountAsAnswered: true } })
  assert.deepEqual(at('2017-10-25'), { hidden: 'zeroed', map: { missing: 'mean', zeroedCountAsAnswered: true } })
  assert.deepEqual(at('2018-02-13'), { hidden: 'zeroed', map: { missing: 'mean', zeroedCountAsAnswered: false } })
  assert.throws(() => polisCodeAt(new Date('not a date')), RangeError)
})
