import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.ts'

/** Delegation writes for the liquid tests, through the API, remembering each user's active delegation ids. */
export class Delegating {
  private readonly ids = new Map<string, number>()
  constructor(private readonly t: TestApp) {}

  async onTag(token: string, userId: number, tag: number, trustee: number | null, priority: number) {
    const response = await this.t.send('POST', '/api/tag_delegations/', { tag, trustee, priority }, token)
    assert.equal(response.statusCode, 201, response.body)
    this.ids.set(`tag:${userId}:${tag}`, response.json().id)
  }

  async onQuestion(token: string, userId: number, question: number, trustee: number | null) {
    const response = await this.t.send('POST', '/api/question_delegation/', { question, trustee }, token)
    assert.equal(response.statusCode, 201, response.body)
    this.ids.set(`question:${userId}:${question}`, response.json().id)
  }

  async revokeTag(token: string, userId: number, tag: number) {
    await this.revoke(token, 'tag_delegations', `tag:${userId}:${tag}`)
  }

  async revokeQuestion(token: string, userId: number, question: number) {
    await this.revoke(token, 'question_delegation', `question:${userId}:${question}`)
  }

  private async revoke(token: string, resource: string, key: string) {
    const response = await this.t.send('DELETE', `/api/${resource}/${this.ids.get(key)}/`, undefined, token)
    assert.equal(response.statusCode, 204, response.body)
    this.ids.delete(key)
  }
}
