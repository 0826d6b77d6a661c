/**
 * Two camps answering a collection of nine likert questions through HTTP: camp a rates questions 0-3 high (4 or 5)
 * and 4-7 low (1 or 2), camp b the other way round, and everyone rates question 8 high. Person `i` varies within
 * the camp, so that people are not all at one point.
 */
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

export type Camp = 'a' | 'b'
export interface CampPerson {
  id: number
  token: string
  camp: Camp
}

export const rating = (camp: Camp, q: number, i: number) => {
  const high = (i * 7 + q * 3) % 5 < 2 ? 4 : 5
  if (q === 8) return high
  return q < 4 === (camp === 'a') ? high : (i * 5 + q) % 3 === 0 ? 2 : 1
}

export async function answer(t: TestApp, person: CampPerson, question: number, value: number, isPrivate = false) {
  const response = await t.send('POST', '/api/question_votes/', { object_id: question, value, private: isPrivate }, person.token)
  assert.ok(response.statusCode < 300, response.body)
}

/** A collection of the nine questions, and `count` people alternating between the camps, who answered them all. */
export async function campsCollection(t: TestApp, count: number, text?: (q: number) => string) {
  const db = t.database.db
  const author = await insertUser(db)
  const collection = (
    await db.insertInto('question_collections').values({ name: 'Camps', user_id: author.id }).returning('id').executeTakeFirstOrThrow()
  ).id
  const questions: number[] = []
  for (let q = 0; q < 9; q++) {
    const id = (await insertQuestion(db, author.id, { publish: true, subtype: 'likert', ...(text ? { question: text(q) } : {}) })).id
    questions.push(id)
    await db.insertInto('question_collection_items').values({ parent_id: collection, question_id: id, type: 'Q', order: q }).execute()
  }
  const people: CampPerson[] = []
  for (let i = 0; i < count; i++) {
    const user = await insertUser(db)
    people.push({ id: user.id, token: await t.tokenFor(user.id), camp: i % 2 === 0 ? 'a' : 'b' })
  }
  for (const [i, person] of people.entries()) for (let q = 0; q < 9; q++) await answer(t, person, questions[q], rating(person.camp, q, i))
  return { collection, questions, people }
}
