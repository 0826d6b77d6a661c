import { insertRows } from './bulk.ts'
import {
  ACTIVITY_END,
  BASE_TIME,
  DAY,
  usersSignedUpBy,
  type AreaIds,
  type QuestionPool,
  type SeedContext,
  type UserPool,
} from './context.ts'
import { TOPICS } from './data/topics.ts'
import type { GroupPool } from './groups.ts'
import { describeQuestion, questionIdeas, slugify, SlugSet } from './question-ideas.ts'
import type { Random } from './random.ts'

const TAG_SPEC = {
  id: 'int',
  text: 'text',
  slug: 'text',
  image: 'text',
  quick_order: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

const QUESTION_SPEC = {
  id: 'int',
  user_id: 'int',
  question: 'text',
  slug: 'text',
  description: 'text',
  subtype: 'text',
  topic_id: 'int',
  group_id: 'int',
  geo_id: 'int',
  og_image: 'text',
  start_at: 'time',
  end_at: 'time',
  publish: 'bool',
  created_at: 'time',
  modified_at: 'time',
} as const

const CHOICE_SPEC = {
  id: 'int',
  question_id: 'int',
  text: 'text',
  store_number: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

const QUESTION_TAG_SPEC = {
  id: 'int',
  question_id: 'int',
  tag_id: 'int',
  position: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

/** Tag ids are the topic's index + 1. */
export async function seedTags(ctx: SeedContext): Promise<number> {
  const rows = TOPICS.map((topic, t) => ({
    id: t + 1,
    text: topic.tag,
    slug: slugify(topic.tag),
    image: null,
    quick_order: topic.quickOrder,
    created_at: BASE_TIME,
    modified_at: BASE_TIME,
  }))
  await insertRows(ctx.db, 'tags', TAG_SPEC, rows)
  return rows.length
}

/** An author who had signed up by time t: often staff or a politician, otherwise anyone. */
function author(rng: Random, users: UserPool, t: number): number {
  const signedUp = usersSignedUpBy(users, t)
  const politicians = users.politicianUserIds.filter((id) => id <= signedUp)
  const roll = rng.next()
  if (roll < 0.3) return rng.pick(users.staffIds)
  if (roll < 0.4 && politicians.length > 0) return rng.pick(politicians)
  return rng.int(1, signedUp)
}

/** Indices of `count` distinct questions, never index 0 (the first question stays an ordinary one). */
function someQuestions(rng: Random, total: number, count: number, exclude: ReadonlySet<number>): Set<number> {
  const pool: number[] = []
  for (let i = 1; i < total; i++) if (!exclude.has(i)) pool.push(i)
  return new Set(rng.sample(pool, count))
}

export async function seedQuestions(ctx: SeedContext, users: UserPool, areas: AreaIds, groups: GroupPool): Promise<QuestionPool> {
  const rng = ctx.rng.stream('questions')
  const { likertQuestions, mcqQuestions } = ctx.scale
  const ideas = rng.shuffle(questionIdeas(rng, likertQuestions, mcqQuestions))
  const n = ideas.length
  const createdAt = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    createdAt[i] = BASE_TIME + 2 * DAY + Math.floor((ACTIVITY_END - BASE_TIME - 14 * DAY) * rng.next() ** 1.3)
  }
  createdAt.sort()

  const unpublished = someQuestions(rng, n, Math.max(1, Math.round(n * 0.02)), new Set())
  const notYetOpen = someQuestions(rng, n, Math.max(1, Math.round(n * 0.005)), unpublished)
  const closed = someQuestions(rng, n, Math.max(1, Math.round(n * 0.07)), new Set([...unpublished, ...notYetOpen]))
  // Questions asked in a group: at least one per group, about 6% of all.
  const groupQuestions = new Map<number, number>()
  if (groups.count > 0) {
    const asked = someQuestions(rng, n, Math.max(groups.count, Math.round(n * 0.06)), new Set())
    ;[...asked].forEach((q, k) => groupQuestions.set(q, k < groups.count ? k : rng.int(0, groups.count - 1)))
  }

  const pool: QuestionPool = {
    count: n,
    topic: new Int16Array(n),
    subtype: [],
    author: new Int32Array(n),
    createdAt,
    voteOpen: new Float64Array(n),
    voteClose: new Float64Array(n),
    published: new Uint8Array(n),
    groupId: new Int32Array(n),
    firstChoiceId: new Int32Array(n),
    choiceCount: new Int8Array(n),
    firstQuestionTagId: new Int32Array(n),
    questionTagCount: new Int8Array(n),
    subjects: TOPICS.map((t) => t.subject),
  }
  const slugs = new SlugSet()
  const questions: Record<string, unknown>[] = []
  const choices: Record<string, unknown>[] = []
  const questionTags: Record<string, unknown>[] = []
  for (let i = 0; i < n; i++) {
    const id = i + 1
    const idea = ideas[i]
    const t = createdAt[i]
    let userId = author(rng, users, t)
    const groupIndex = groupQuestions.get(i)
    const groupId = groupIndex === undefined ? null : groupIndex + 1
    if (groupIndex !== undefined) userId = rng.pick(groups.members[groupIndex])
    let startAt: number | null = null
    let endAt: number | null = null
    if (notYetOpen.has(i)) {
      startAt = Date.UTC(2027, 1, 1) / 1000 + rng.int(0, 120) * DAY
      endAt = rng.chance(0.5) ? startAt + 90 * DAY : null
    } else if (closed.has(i) && t + 20 * DAY < ACTIVITY_END) {
      startAt = t
      endAt = Math.min(ACTIVITY_END - DAY, t + rng.int(14, 60) * DAY)
    }
    const publish = !unpublished.has(i)
    pool.topic[i] = idea.topic
    pool.subtype.push(idea.subtype)
    pool.author[i] = userId
    pool.published[i] = publish ? 1 : 0
    pool.groupId[i] = groupId ?? 0
    pool.voteOpen[i] = startAt ?? t
    pool.voteClose[i] = publish && !notYetOpen.has(i) ? (endAt ?? ACTIVITY_END) : pool.voteOpen[i]

    const regionId = idea.region !== null ? areas.regions[idea.region] : rng.chance(0.04) ? areas.gb : null
    questions.push({
      id,
      user_id: userId,
      question: idea.text,
      slug: slugs.claim(idea.text),
      description: rng.chance(0.85) ? describeQuestion(rng, idea) : '',
      subtype: idea.subtype,
      topic_id: idea.topic + 1,
      group_id: groupId,
      geo_id: regionId,
      og_image: null,
      start_at: startAt,
      end_at: endAt,
      publish,
      created_at: t,
      modified_at: rng.chance(0.2) ? Math.min(ACTIVITY_END, t + rng.int(1, 3 * 86_400)) : t,
    })

    pool.firstQuestionTagId[i] = questionTags.length + 1
    const extraTopics = rng.sample(
      TOPICS.map((_, k) => k).filter((k) => k !== idea.topic),
      rng.weighted<number>([
        [0, 45],
        [1, 40],
        [2, 15],
      ]),
    )
    ;[idea.topic, ...extraTopics].forEach((topic, position) => {
      questionTags.push({
        id: questionTags.length + 1,
        question_id: id,
        tag_id: topic + 1,
        position,
        created_at: t,
        modified_at: t,
      })
    })
    pool.questionTagCount[i] = 1 + extraTopics.length

    pool.firstChoiceId[i] = choices.length + 1
    pool.choiceCount[i] = idea.choices.length
    idea.choices.forEach((text, k) => {
      choices.push({ id: choices.length + 1, question_id: id, text, store_number: k, created_at: t, modified_at: t })
    })
  }
  const chunkSize = ctx.scale.chunkSize
  await insertRows(ctx.db, 'questions', QUESTION_SPEC, questions, { chunkSize })
  await insertRows(ctx.db, 'question_choices', CHOICE_SPEC, choices, { chunkSize })
  await insertRows(ctx.db, 'question_tags', QUESTION_TAG_SPEC, questionTags, { chunkSize })
  ctx.progress('questions', n, n)
  return pool
}
