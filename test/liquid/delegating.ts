import type { TestApp } from '../helpers/app.ts'
import { questionsWithTags, withLiquidEffects } from '../../src/modules/liquid/liquid.effects.ts'

/** Delegation writes for the liquid tests, through the same engine entry point the delegation resources use. */
export async function delegateOnTag(t: TestApp, userId: number, tagId: number, trusteeId: number | null, priority: number) {
  await t.database.db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, userId, await questionsWithTags(trx, [tagId]), async () => {
      await trx.updateTable('tag_delegations').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('tag_id', '=', tagId).where('revoked_at', 'is', null).execute()
      await trx.insertInto('tag_delegations').values({ user_id: userId, tag_id: tagId, trustee_id: trusteeId, priority }).execute()
    }),
  )
}

export async function revokeOnTag(t: TestApp, userId: number, tagId: number) {
  await t.database.db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, userId, await questionsWithTags(trx, [tagId]), async () => {
      await trx.updateTable('tag_delegations').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('tag_id', '=', tagId).where('revoked_at', 'is', null).execute()
    }),
  )
}

export async function delegateOnQuestion(t: TestApp, userId: number, questionId: number, trusteeId: number | null) {
  await t.database.db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, userId, [questionId], async () => {
      await trx.updateTable('question_delegations').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('question_id', '=', questionId).where('revoked_at', 'is', null).execute()
      await trx.insertInto('question_delegations').values({ user_id: userId, question_id: questionId, trustee_id: trusteeId }).execute()
    }),
  )
}

export async function revokeOnQuestion(t: TestApp, userId: number, questionId: number) {
  await t.database.db.transaction().execute(async (trx) =>
    withLiquidEffects(trx, userId, [questionId], async () => {
      await trx.updateTable('question_delegations').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('question_id', '=', questionId).where('revoked_at', 'is', null).execute()
    }),
  )
}
