import type { Kysely } from 'kysely'
import type { Caller } from '../../core/caller.ts'
import type { Database } from '../../db/database.ts'
import { NotFound, fieldError, invalidPk, uniqueSet } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { tagsRepository, toTag } from '../tags/tags.repository.ts'
import type { Tag } from '../tags/tags.schemas.ts'
import { followingTagsRepository, type FollowingTagRow } from './following-tags.repository.ts'

/** A new follow link; a second one for the same tag is refused by the unique constraint. */
export async function createFollowingTag(db: Kysely<Database>, caller: Caller, tagId: number): Promise<FollowingTagRow> {
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const repository = followingTagsRepository(trx)
        if (!(await repository.tagExists(tagId))) throw fieldError('tag', invalidPk(tagId))
        const row = await repository.insert(caller.id, tagId)
        await repository.count(row, 1)
        return row
      }),
    { unique: uniqueSet('user', 'tag'), missing: () => ({ tag: [invalidPk(tagId)] }) },
  )
}

export async function deleteFollowingTag(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = followingTagsRepository(trx)
    const removed = await repository.remove(id)
    if (!removed) throw NotFound()
    await repository.count(removed, -1)
  })
}

/** The follow action: idempotent; answers whether a link was made. An unknown tag is a 404 (it is in the URL). */
export async function followTag(db: Kysely<Database>, caller: Caller, tagId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const repository = followingTagsRepository(trx)
    if (!(await repository.tagExists(tagId))) throw NotFound()
    const row = await repository.insertIfAbsent(caller.id, tagId)
    if (row) await repository.count(row, 1)
    return row !== undefined
  })
}

export async function unfollowTag(db: Kysely<Database>, caller: Caller, tagId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = followingTagsRepository(trx)
    if (!(await repository.tagExists(tagId))) throw NotFound()
    const removed = await repository.removeOf(caller.id, tagId)
    if (removed) await repository.count(removed, -1)
  })
}

/** The tag as /api/tags/:id/ shows the caller it, after a follow or unfollow. */
export async function tagAsFollowerSees(db: Kysely<Database>, caller: Caller, id: number, urls: UrlBuilder): Promise<Tag> {
  const row = (await tagsRepository(db).findByIds([id])).get(id)
  if (!row) throw NotFound()
  const followed = await tagsRepository(db).followedBy(caller.id, [id])
  return toTag(row, followed.has(id), urls)
}
