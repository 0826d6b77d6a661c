import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import type { InsertOptions } from './bulk.ts'
import type { Random } from './random.ts'

export type SeedScale = 'tiny' | 'demo' | 'large'

export interface ScaleConfig {
  users: number
  likertQuestions: number
  mcqQuestions: number
  /** Target number of question votes (on likert questions); multiple-choice answers come on top. */
  votes: number
  politicians: number
  groups: number
  collections: number
  /** Comments per question vote. */
  commentRate: number
  chunkSize: number
}

export const SCALES: Readonly<Record<SeedScale, ScaleConfig>> = {
  tiny: {
    users: 60,
    likertQuestions: 21,
    mcqQuestions: 4,
    votes: 600,
    politicians: 6,
    groups: 3,
    collections: 3,
    commentRate: 1 / 10,
    chunkSize: 20_000,
  },
  demo: {
    users: 2_000,
    likertQuestions: 255,
    mcqQuestions: 45,
    votes: 100_000,
    politicians: 60,
    groups: 8,
    collections: 30,
    commentRate: 1 / 40,
    chunkSize: 25_000,
  },
  large: {
    users: 100_000,
    likertQuestions: 8_500,
    mcqQuestions: 1_500,
    votes: 5_000_000,
    politicians: 650,
    groups: 60,
    collections: 600,
    commentRate: 1 / 60,
    chunkSize: 40_000,
  },
}

/** Every seeded timestamp is this instant plus an offset (seconds since the Unix epoch). */
export const BASE_TIME = Date.UTC(2026, 0, 1) / 1000
export const DAY = 86_400
/** Activity (sign-ups, questions, votes, comments) happens between BASE_TIME and this instant. */
export const ACTIVITY_END = BASE_TIME + 300 * DAY
/** The date ages are counted at. */
export const REFERENCE_DATE = { year: 2026, month: 7, day: 1 }

export function isoDate(secondsSinceEpoch: number): string {
  return new Date(secondsSinceEpoch * 1000).toISOString().slice(0, 10)
}

export type Progress = (stage: string, done: number, total: number) => void

export interface SeedContext {
  db: Kysely<Database>
  rng: Random
  scale: ScaleConfig
  progress: Progress
}

/** Chunked inserts of a table that can grow large, reported as a stage of their own. */
export function loadOptions(ctx: SeedContext, stage: string, total: number): InsertOptions {
  return {
    chunkSize: ctx.scale.chunkSize,
    onChunk: (done) => ctx.progress(stage, done, total),
    onRebuild: (done, steps) => ctx.progress(`${stage} (keys and indexes)`, done, steps),
  }
}

/** Users as the later stages need them; index i is the user with id i + 1. */
export interface UserPool {
  count: number
  /** Sign-up time, ascending with the id. */
  createdAt: Float64Array
  /** Index into UK_REGIONS, -1 when living abroad. */
  region: Int8Array
  /** -1 to 1: where the user leans; answers correlate with it. */
  lean: Float32Array
  /** How much the user takes part (heavy-tailed, median 1). */
  activity: Float64Array
  defaultPrivate: Uint8Array
  /** Ids of staff users and of politicians' users. */
  staffIds: number[]
  politicianUserIds: number[]
}

/** A seeded person's name, gender and region (index into UK_REGIONS), before they become a user or politician. */
export interface Person {
  first: string
  last: string
  /** 0 rather not say, 1 male, 2 female, 3 other. */
  gender: number
  region: number
}

/** How many users had signed up by time t (users are sorted by sign-up time). */
export function usersSignedUpBy(users: UserPool, t: number): number {
  let lo = 0
  let hi = users.count
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (users.createdAt[mid] <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface AreaIds {
  gb: number
  /** Area id of each UK_REGIONS entry. */
  regions: number[]
  countries: Map<string, number>
  count: number
}

export interface QuestionPool {
  count: number
  /** Index into TOPICS of each question's topic. */
  topic: Int16Array
  subtype: ('likert' | 'mcq')[]
  /** Author's user id. */
  author: Int32Array
  createdAt: Float64Array
  /** When answers open and close; voteClose <= voteOpen means nobody can answer. */
  voteOpen: Float64Array
  voteClose: Float64Array
  published: Uint8Array
  /** Group id, 0 when the question belongs to no group. */
  groupId: Int32Array
  /** First choice id and number of choices, for multiple-choice questions. */
  firstChoiceId: Int32Array
  choiceCount: Int8Array
  /** question_tags rows: the first id of each question's tags and how many it has. */
  firstQuestionTagId: Int32Array
  questionTagCount: Int8Array
  subjects: string[]
}

export interface CollectionPool {
  count: number
  /** Collections each question belongs to, with their creation times. */
  byQuestion: Map<number, { id: number; createdAt: number }[]>
}
