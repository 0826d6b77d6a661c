import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'

export interface Person {
  id: number
  token: string
  username: string
}

/** People, questions and collections made for the collection tests, collections and items through the API. */
export function collectionWorld(t: TestApp) {
  const db = t.database.db
  let serial = 0
  return {
    async person(values: { is_staff?: boolean } = {}): Promise<Person> {
      const row = await insertUser(db, { username: `cw_${process.pid}_${++serial}`, ...values })
      return { id: row.id, token: await t.tokenFor(row.id), username: row.username }
    },

    async question(authorId: number, values: { publish?: boolean; question?: string } = {}): Promise<number> {
      return (await insertQuestion(db, authorId, values)).id
    },

    async collection(owner: Person, body: Record<string, unknown> = {}): Promise<any> {
      const response = await t.send(
        'POST',
        '/api/question_collections/',
        { name: `Collection ${++serial}`, desc: 'About things', end_text: 'Thanks', ...body },
        owner.token,
      )
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    },

    async add(owner: Person, body: Record<string, unknown>): Promise<any> {
      const response = await t.send('POST', '/api/question_collection_items/', body, owner.token)
      assert.equal(response.statusCode, 201, response.body)
      return response.json()
    },

    /** The item ids of a collection in the order the web app reads them. */
    async itemIds(collectionId: number, token?: string): Promise<number[]> {
      const page = await t.json(
        `/api/question_collection_items/?parent=${collectionId}&ordering=order&page_size=100`,
        token ? { authorization: `Token ${token}` } : {},
      )
      return page.results.map((item: any) => item.id)
    },
  }
}

/** The stored question_count and item_count equal a recomputation from the items. */
export async function assertCountersExact(t: TestApp): Promise<void> {
  assert.deepEqual(await storedFigureDifferences(t.database.db, { question_collections: ['question_count', 'item_count'] }), [])
}
