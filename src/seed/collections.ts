import { insertRows } from './bulk.ts'
import {
  ACTIVITY_END,
  BASE_TIME,
  DAY,
  usersSignedUpBy,
  type AreaIds,
  type CollectionPool,
  type QuestionPool,
  type SeedContext,
  type UserPool,
} from './context.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import { slugify } from './question-ideas.ts'
import { breakContent, collectionTexts } from './text.ts'

const COLLECTION_SPEC = {
  id: 'int',
  user_id: 'int',
  name: 'text',
  desc: 'text',
  end_text: 'text',
  photo: 'text',
  geo_id: 'int',
  expire_at: 'time',
  copied_from_id: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

const ITEM_SPEC = {
  id: 'int',
  parent_id: 'int',
  type: 'text',
  question_id: 'int',
  content: 'jsonb',
  order: 'int',
  created_at: 'time',
  modified_at: 'time',
} as const

const COLLECTION_TAG_SPEC = { id: 'int', collection_id: 'int', tag_id: 'int', created_at: 'time' } as const

type Item = { question: number } | { title: string; text: string }

function questionsBefore(questions: QuestionPool, t: number): number {
  let k = 0
  while (k < questions.count && questions.createdAt[k] <= t) k++
  return k
}

export async function seedCollections(ctx: SeedContext, users: UserPool, areas: AreaIds, questions: QuestionPool): Promise<CollectionPool> {
  const rng = ctx.rng.stream('collections')
  const count = ctx.scale.collections
  // Not before a handful of questions exist to put in a collection.
  const earliest = Math.max(BASE_TIME + 10 * DAY, questions.createdAt[Math.min(questions.count - 1, 9)])
  const times = Array.from(
    { length: count },
    () => earliest + Math.floor(Math.max(DAY, ACTIVITY_END - 30 * DAY - earliest) * rng.next()),
  ).sort((a, b) => a - b)
  const small = ctx.scale.users < 100
  const pool: CollectionPool = { count, byQuestion: new Map() }
  const collections: Record<string, unknown>[] = []
  const items: Record<string, unknown>[] = []
  const tags: Record<string, unknown>[] = []
  const itemsOf: Item[][] = []

  for (let c = 0; c < count; c++) {
    const id = c + 1
    const t = times[c]
    const available = questionsBefore(questions, t)
    const topic = rng.int(0, questions.subjects.length - 1)
    const subject = questions.subjects[topic]
    const region = UK_REGIONS[rng.int(0, UK_REGIONS.length - 1)]
    const signedUp = usersSignedUpBy(users, t)
    const roll = rng.next()
    const owner =
      roll < 0.3
        ? rng.pick(users.staffIds)
        : roll < 0.5 && users.politicianUserIds[0] <= signedUp
          ? rng.pick(users.politicianUserIds.filter((u) => u <= signedUp))
          : rng.int(1, signedUp)

    let list: Item[]
    let copiedFrom: number | null = null
    const texts = collectionTexts(rng, subject, region.name, slugify(subject))
    if (c > 0 && rng.chance(0.05)) {
      copiedFrom = rng.int(1, c)
      list = itemsOf[copiedFrom - 1]
      texts.name = String(collections[copiedFrom - 1].name)
    } else {
      const published: number[] = []
      const onTopic: number[] = []
      for (let q = 0; q < available; q++) {
        if (!questions.published[q]) continue
        published.push(q)
        if (questions.topic[q] === topic) onTopic.push(q)
      }
      const wanted = small ? rng.int(3, 6) : rng.int(4, 12)
      const chosen = rng.sample(onTopic, Math.ceil(wanted * 0.6))
      for (const q of rng.sample(published, wanted * 2)) if (chosen.length < wanted && !chosen.includes(q)) chosen.push(q)
      list = chosen.map((q) => ({ question: q }))
      const drawn =
        list.length > 3
          ? rng.weighted<number>([
              [0, 50],
              [1, 35],
              [2, 15],
            ])
          : 0
      // The first collection always shows a break between its questions.
      const breaks = c === 0 && list.length >= 2 ? Math.max(1, drawn) : drawn
      for (let b = 0; b < breaks; b++) {
        const at = rng.int(1, list.length - 1)
        list.splice(at, 0, breakContent(rng, questions.subjects[rng.int(0, questions.subjects.length - 1)], b + 2))
      }
    }
    itemsOf.push(list)
    collections.push({
      id,
      user_id: owner,
      name: texts.name,
      desc: rng.chance(0.9) ? texts.desc : null,
      end_text: rng.chance(0.7) ? texts.endText : null,
      photo: rng.chance(0.35) ? `https://images.example.org/collections/${id}.jpg` : null,
      geo_id: rng.chance(0.2) ? areas.regions[UK_REGIONS.indexOf(region)] : null,
      expire_at: rng.chance(0.05) ? Date.UTC(2027, rng.int(0, 11), rng.int(1, 28)) / 1000 : null,
      copied_from_id: copiedFrom,
      created_at: t,
      modified_at: t,
    })
    list.forEach((item, order) => {
      const at = t + order * 60
      const isQuestion = 'question' in item
      items.push({
        id: items.length + 1,
        parent_id: id,
        type: isQuestion ? 'Q' : 'B',
        question_id: isQuestion ? item.question + 1 : null,
        content: isQuestion ? null : JSON.stringify(item),
        order,
        created_at: at,
        modified_at: at,
      })
      if (isQuestion) {
        const memberships = pool.byQuestion.get(item.question) ?? []
        memberships.push({ id, createdAt: t })
        pool.byQuestion.set(item.question, memberships)
      }
    })
    if (rng.chance(0.5)) {
      const tagTopics = [topic, ...(rng.chance(0.3) ? [rng.int(0, questions.subjects.length - 1)] : [])]
      for (const tagTopic of new Set(tagTopics)) {
        tags.push({ id: tags.length + 1, collection_id: id, tag_id: tagTopic + 1, created_at: t })
      }
    }
  }
  await insertRows(ctx.db, 'question_collections', COLLECTION_SPEC, collections)
  await insertRows(ctx.db, 'question_collection_items', ITEM_SPEC, items, { chunkSize: ctx.scale.chunkSize })
  await insertRows(ctx.db, 'question_collection_tags', COLLECTION_TAG_SPEC, tags)
  ctx.progress('collections', count, count)
  return pool
}
