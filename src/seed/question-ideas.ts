import { TOPICS, AUDIENCES } from './data/topics.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import type { Random } from './random.ts'

/** A question before it gets ids: its wording, its topic (index into TOPICS) and, for local questions, its region. */
export interface QuestionIdea {
  text: string
  subtype: 'likert' | 'mcq'
  topic: number
  /** Index into UK_REGIONS when the question is about one region. */
  region: number | null
  choices: string[]
}

const NATIONAL_FRAMES: readonly ((policy: string) => string)[] = [
  (p) => `Should the government ${p}?`,
  (p) => `The government should ${p}.`,
  (p) => `Do you support plans to ${p}?`,
  (p) => `Parliament should vote to ${p}.`,
  (p) => `Is it time to ${p}?`,
  (p) => `Should the UK ${p} by 2030?`,
  (p) => `The next government should ${p} within its first year.`,
  (p) => `Ministers should ${p}, even if it means cuts elsewhere.`,
]

const REGIONAL_FRAMES: readonly ((policy: string, region: string) => string)[] = [
  (p, r) => `Should MPs representing ${r} campaign to ${p}?`,
  (p, r) => `Would ${r} be better off if the government chose to ${p}?`,
  (p, r) => `People in ${r} would benefit if ministers decided to ${p}.`,
]

export function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function mcqTexts(subject: string): { text: string; region: number | null }[] {
  const out: { text: string; region: number | null }[] = [
    { text: `Which of these should be the government's first priority on ${subject}?`, region: null },
    { text: `If you could choose one change to ${subject}, which would it be?`, region: null },
    { text: `Which policy on ${subject} would make the biggest difference to you?`, region: null },
  ]
  for (const audience of AUDIENCES) {
    out.push({ text: `Which policy on ${subject} would help ${audience} most?`, region: null })
  }
  UK_REGIONS.forEach((region, r) => {
    out.push({ text: `What should MPs representing ${region.name} push for first on ${subject}?`, region: r })
    for (const audience of AUDIENCES) {
      out.push({ text: `Which policy on ${subject} would help ${audience} in ${region.name} most?`, region: r })
    }
  })
  return out
}

/** Draws from several shuffled pools in turn, by weight, until `count` ideas are taken or all pools are empty. */
function drawFromPools<T>(rng: Random, pools: { items: T[]; weight: number }[], count: number): T[] {
  for (const pool of pools) rng.shuffle(pool.items)
  const out: T[] = []
  while (out.length < count) {
    const open = pools.filter((pool) => pool.items.length > 0)
    if (open.length === 0) break
    const pool = open[rng.weightedIndex(open.map((p) => p.weight))]
    out.push(pool.items.pop()!)
  }
  return out
}

/**
 * `likert` agree/disagree questions and `mcq` multiple-choice questions, all with distinct wording.
 * Hand-written and national wordings are the likelier picks; some questions are about one region
 * (most of them at the large scale, where the national wordings run out).
 */
export function questionIdeas(rng: Random, likert: number, mcq: number): QuestionIdea[] {
  const written: QuestionIdea[] = []
  const national: QuestionIdea[] = []
  const regional: QuestionIdea[] = []
  const choiceQuestions: QuestionIdea[] = []
  TOPICS.forEach((topic, t) => {
    for (const text of topic.questions) written.push({ text, subtype: 'likert', topic: t, region: null, choices: [] })
    for (const policy of topic.policies) {
      for (const frame of NATIONAL_FRAMES) {
        national.push({ text: frame(policy), subtype: 'likert', topic: t, region: null, choices: [] })
      }
      UK_REGIONS.forEach((region, r) => {
        for (const frame of REGIONAL_FRAMES) {
          regional.push({ text: frame(policy, region.name), subtype: 'likert', topic: t, region: r, choices: [] })
        }
      })
    }
    for (const { text, region } of mcqTexts(topic.subject)) {
      choiceQuestions.push({ text, subtype: 'mcq', topic: t, region, choices: [] })
    }
  })
  const likertIdeas = drawFromPools(
    rng,
    [
      { items: written, weight: 35 },
      { items: national, weight: 50 },
      { items: regional, weight: 15 },
    ],
    likert,
  )
  const nationalMcq = choiceQuestions.filter((idea) => idea.region === null)
  const regionalMcq = choiceQuestions.filter((idea) => idea.region !== null)
  const mcqIdeas = drawFromPools(
    rng,
    [
      { items: nationalMcq, weight: 80 },
      { items: regionalMcq, weight: 20 },
    ],
    mcq,
  )
  for (const idea of mcqIdeas) {
    const policies = TOPICS[idea.topic].policies
    idea.choices = rng.sample(policies, rng.int(3, 5)).map(sentenceCase)
  }
  if (likertIdeas.length < likert || mcqIdeas.length < mcq) {
    throw new Error(`only ${likertIdeas.length} likert and ${mcqIdeas.length} multiple-choice wordings are available`)
  }
  return [...likertIdeas, ...mcqIdeas]
}

/** A short description: one or two paragraphs of context for the voter. */
export function describeQuestion(rng: Random, idea: QuestionIdea): string {
  const topic = TOPICS[idea.topic]
  const audience = rng.pick(AUDIENCES)
  const lines = [
    `This question is about ${topic.subject}. Vote to see how your view compares with people across the UK.`,
    `Supporters argue this would make a real difference to ${audience}. ` +
      'Opponents say the money would be better spent elsewhere. Where do you stand?',
    `Ministers are expected to set out their plans on ${topic.subject} later this year. ` +
      'Your answer helps show what people actually think.',
    `Think about how this would affect you, your family and your area.\n\nYou can explain your answer in the comments.`,
    `Asked by a member of the community. Your answer is only shown to others if you choose to share it.`,
    `There is no right or wrong answer. If you are unsure, you can skip this question and come back to it later.`,
  ]
  const parts = [rng.pick(lines)]
  if (idea.region !== null) parts.push(`This question is about ${UK_REGIONS[idea.region].name}, but everyone can answer.`)
  else if (rng.chance(0.3)) parts.push(rng.pick(lines))
  if (idea.subtype === 'mcq') parts.push('Pick the one option you would choose first.')
  return [...new Set(parts)].join('\n\n')
}

/** Lowercase words joined by hyphens, at most about 80 characters, cut at a word boundary. */
export function slugify(text: string): string {
  const base = text
    .toLowerCase()
    .replace(/£/g, '')
    .replace(/%/g, '-percent')
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  if (base.length <= 80) return base
  return base.slice(0, 81).replace(/-[^-]*$/, '')
}

/** Hands out unique slugs: the plain slug first, then `-2`, `-3`, ... */
export class SlugSet {
  private readonly taken = new Set<string>()

  claim(text: string): string {
    const base = slugify(text) || 'item'
    let slug = base
    for (let n = 2; this.taken.has(slug); n++) slug = `${base}-${n}`
    this.taken.add(slug)
    return slug
  }
}
