import assert from 'node:assert/strict'
import { sql } from 'kysely'
import type { TestApp } from '../helpers/app.ts'
import { insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'

/** People, tagged questions, answers and delegations made through the API, for the representation and liquid tests. */

export interface Person {
  id: number
  token: string
}

export function delegationWorld(t: TestApp) {
  const db = t.database.db
  let serial = 0
  return {
    async person(values: { is_active?: boolean; is_deleted?: boolean } = {}): Promise<Person> {
      const row = await insertUser(db, { username: `dw_${process.pid}_${++serial}` })
      const token = await t.tokenFor(row.id)
      if (Object.keys(values).length) await db.updateTable('users').set(values).where('id', '=', row.id).execute()
      return { id: row.id, token }
    },

    async tag(): Promise<number> {
      return (await insertTag(db, `DW tag ${process.pid} ${++serial}`)).id
    },

    /** A question carrying these tags in this order: the first is the topic (position 0). */
    async question(authorId: number, tagIds: number[], values: { subtype?: 'likert' | 'mcq'; publish?: boolean } = {}): Promise<number> {
      const question = await insertQuestion(db, authorId, { topic_id: tagIds[0] ?? null, ...values })
      if (tagIds.length)
        await db
          .insertInto('question_tags')
          .values(tagIds.map((tagId, position) => ({ question_id: question.id, tag_id: tagId, position })))
          .execute()
      return question.id
    },

    async choices(questionId: number, count: number): Promise<number[]> {
      const rows = await db
        .insertInto('question_choices')
        .values(Array.from({ length: count }, (_, i) => ({ question_id: questionId, text: `Choice ${i + 1}`, store_number: i })))
        .returning('id')
        .execute()
      return rows.map((row) => row.id)
    },

    /** A likert answer (null: a skip) through the API. */
    async answer(who: Person, questionId: number, value: number | null, isPrivate = false) {
      const response = await t.send('POST', '/api/question_votes/', { object_id: questionId, value, private: isPrivate }, who.token)
      assert.ok([200, 201].includes(response.statusCode), `answer: ${response.statusCode} ${response.body}`)
      return response.json()
    },

    async choose(who: Person, choiceId: number, value = 5, isPrivate = false) {
      const response = await t.send('POST', '/api/question_choice_votes/', { object_id: choiceId, value, private: isPrivate }, who.token)
      assert.ok([200, 201].includes(response.statusCode), `choose: ${response.statusCode} ${response.body}`)
      return response.json()
    },

    async onTag(who: Person, tagId: number, trustee: Person | null, priority?: number) {
      const body =
        priority === undefined ? { tag: tagId, trustee: trustee?.id ?? null } : { tag: tagId, trustee: trustee?.id ?? null, priority }
      const response = await t.send('POST', '/api/tag_delegations/', body, who.token)
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    },

    async onQuestion(who: Person, questionId: number, trustee: Person | null) {
      const response = await t.send('POST', '/api/question_delegation/', { question: questionId, trustee: trustee?.id ?? null }, who.token)
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    },

    async representation(who: Person, questionId: number) {
      const response = await t.get(`/api/questions/${questionId}/representation/`, { authorization: `Token ${who.token}` })
      assert.equal(response.statusCode, 200, response.body)
      return response.json()
    },

    /** The database's own answer: the trustee of the user's winning delegation for the question. */
    async liquidParent(who: Person, questionId: number): Promise<number | null> {
      const { rows } = await sql<{
        parent: number | null
      }>`SELECT liquid_parent(${questionId}::integer, ${who.id}::integer) AS parent`.execute(db)
      return rows[0].parent
    },

    async liquidRepresentative(who: Person, questionId: number): Promise<number | null> {
      const { rows } = await sql<{
        representative: number | null
      }>`SELECT liquid_representative(${questionId}::integer, ${who.id}::integer) AS representative`.execute(db)
      return rows[0].representative
    },
  }
}
