import { sql, type Insertable, type Kysely } from 'kysely'
import type { Database, Questions } from '../../db/database.ts'
import { nextFreeSlug, slugify } from './slug.ts'
import type { ChoicePlan } from './question-rules.ts'

/** Room for store numbers while choices are renumbered: (question_id, store_number) is unique at every statement. */
const RENUMBER_OFFSET = 1_000_000

/** The SQL of question writes; the caller holds the transaction. */
export function questionWritesRepository(trx: Kysely<Database>) {
  return {
    async existingIds(table: 'tags' | 'areas' | 'groups', ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set()
      const rows = await trx
        .selectFrom(table)
        .select('id')
        .where('id', 'in', [...new Set(ids)])
        .execute()
      return new Set(rows.map((row) => row.id))
    },

    /** Collections among `ids` that belong to the user, locked in id order so that item orders are handed out one at a time. */
    async lockOwnCollections(userId: number, ids: number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set()
      const rows = await trx
        .selectFrom('question_collections')
        .select('id')
        .where('id', 'in', [...new Set(ids)])
        .where('user_id', '=', userId)
        .orderBy('id')
        .forNoKeyUpdate()
        .execute()
      return new Set(rows.map((row) => row.id))
    },

    /** The group's join policy and whether the user is a member, or undefined when there is no such group. */
    async groupAccess(groupId: number, userId: number) {
      return trx
        .selectFrom('groups')
        .select(['groups.join_policy'])
        .select((eb) =>
          eb
            .exists(eb.selectFrom('group_memberships').select('id').where('group_id', '=', groupId).where('user_id', '=', userId))
            .as('member'),
        )
        .where('groups.id', '=', groupId)
        .executeTakeFirst()
    },

    /**
     * Inserts the question under the first free slug of its title. The unique index decides: a slug taken
     * by a concurrent insert makes ON CONFLICT skip the row, and the next free one is tried.
     */
    async insertQuestion(values: Omit<Insertable<Questions>, 'slug'>): Promise<number> {
      const base = slugify(values.question)
      for (let attempt = 0; ; attempt++) {
        const taken = await trx
          .selectFrom('questions')
          .select('slug')
          .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
          .execute()
        const slug = nextFreeSlug(
          base,
          taken.map((row) => row.slug),
        )
        const row = await trx
          .insertInto('questions')
          .values({ ...values, slug })
          .onConflict((oc) => oc.column('slug').doNothing())
          .returning('id')
          .executeTakeFirst()
        if (row) return row.id
        if (attempt >= 20) throw new Error(`no free slug for ${base}`)
      }
    },

    /** Sets the question's tags to `ordered` (topic first): keeps rows of tags that stay, renumbers them, adds new ones. */
    async setTags(questionId: number, ordered: number[]): Promise<void> {
      const topicId = ordered[0] ?? null
      let remove = trx.deleteFrom('question_tags').where('question_id', '=', questionId)
      if (ordered.length) remove = remove.where('tag_id', 'not in', ordered)
      await remove.execute()
      if (ordered.length) {
        await trx
          .insertInto('question_tags')
          .values(ordered.map((tagId, position) => ({ question_id: questionId, tag_id: tagId, position })))
          .onConflict((oc) => oc.columns(['question_id', 'tag_id']).doUpdateSet({ position: (eb) => eb.ref('excluded.position') }))
          .execute()
      }
      await trx.updateTable('questions').set({ topic_id: topicId }).where('id', '=', questionId).execute()
    },

    async insertChoices(questionId: number, texts: string[]): Promise<void> {
      if (texts.length === 0) return
      await trx
        .insertInto('question_choices')
        .values(texts.map((text, store_number) => ({ question_id: questionId, text, store_number })))
        .execute()
    },

    /**
     * Stored choices with whether anyone chose each one. The caller holds the question's lock, which is
     * enough: answering transactions lock the question first and wait for it.
     */
    async choicesWithAnswers(questionId: number) {
      return trx
        .selectFrom('question_choices')
        .select(['id', 'text', 'store_number'])
        .select((eb) =>
          eb.exists(eb.selectFrom('question_choice_votes').select('id').whereRef('choice_id', '=', 'question_choices.id')).as('answered'),
        )
        .where('question_id', '=', questionId)
        .orderBy('store_number')
        .execute()
    },

    /** Removes, rewords, renumbers and adds choices as planned; store numbers follow the new list from 0. */
    async applyChoicePlan(questionId: number, plan: ChoicePlan): Promise<void> {
      if (plan.remove.length) await trx.deleteFrom('question_choices').where('id', 'in', plan.remove).execute()
      const kept = plan.list.filter((entry) => entry.id !== null)
      if (kept.length) {
        await trx
          .updateTable('question_choices')
          .set({ store_number: sql`store_number + ${RENUMBER_OFFSET}` })
          .where('question_id', '=', questionId)
          .execute()
        for (const [index, entry] of plan.list.entries()) {
          if (entry.id === null) continue
          await trx
            .updateTable('question_choices')
            .set({
              store_number: index,
              text: entry.text,
              modified_at: sql`CASE WHEN text = ${entry.text} AND store_number = ${index + RENUMBER_OFFSET} THEN modified_at ELSE now() END`,
            })
            .where('id', '=', entry.id)
            .execute()
        }
      }
      const added = plan.list.flatMap((entry, index) =>
        entry.id === null ? [{ question_id: questionId, text: entry.text, store_number: index }] : [],
      )
      if (added.length) await trx.insertInto('question_choices').values(added).execute()
    },

    async insertLinks(questionId: number, userId: number, links: { link: string; title: string }[]): Promise<void> {
      if (links.length === 0) return
      await trx
        .insertInto('question_links')
        .values(links.map(({ link, title }) => ({ question_id: questionId, user_id: userId, link, title })))
        .execute()
    },

    async connectGroup(groupId: number, questionId: number): Promise<void> {
      await trx
        .insertInto('group_question_connections')
        .values({ group_id: groupId, question_id: questionId, active: true })
        .onConflict((oc) => oc.columns(['group_id', 'question_id']).doNothing())
        .execute()
    },

    /** One question item at the end of each collection (collections locked by the caller). */
    async appendToCollections(questionId: number, collectionIds: number[]): Promise<void> {
      if (collectionIds.length === 0) return
      await sql`INSERT INTO question_collection_items (parent_id, type, question_id, "order")
        SELECT c.id, 'Q', ${questionId}, coalesce((SELECT max(i."order") + 1 FROM question_collection_items i WHERE i.parent_id = c.id), 0)
        FROM question_collections c WHERE c.id = ANY(${collectionIds}::int4[])`.execute(trx)
    },

    /** The collections holding the question, in id order. */
    async collectionsHolding(questionId: number): Promise<number[]> {
      const rows = await trx
        .selectFrom('question_collection_items')
        .select('parent_id')
        .where('question_id', '=', questionId)
        .orderBy('parent_id')
        .execute()
      return rows.map((row) => row.parent_id)
    },

    async update(questionId: number, values: Partial<Insertable<Questions>>): Promise<void> {
      await trx
        .updateTable('questions')
        .set({ ...values, modified_at: sql`now()` })
        .where('id', '=', questionId)
        .execute()
    },
  }
}
