import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { tagsRepository, toTag } from './tags.repository.ts'
import { Tag, TagListQuery } from './tags.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function tagRoutes(app: App): void {
  const repository = () => tagsRepository(app.db)

  for (const [name, quick] of [
    ['tags', false],
    ['quick_tags', true],
  ] as const) {
    listRoute(app, `/api/${name}/`, {
      summary: quick ? 'Featured tags for quick picking' : 'Tags (topics) of questions',
      querystring: TagListQuery,
      item: Tag,
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: {
          name: quick ? 'Quick Tag List' : 'Tag List',
          description: quick
            ? 'Featured topics, in their display order.'
            : 'Topics that questions carry, with follower and question counts.',
        },
      },
      rows: (request, list) => repository().page({ ...request.query, quick }, list),
      items: async (rows, request) => {
        const urls = urlsFor(request)
        const followed = await repository().followedBy(
          request.caller?.id ?? null,
          rows.map((row) => row.id),
        )
        return rows.map((row) => toTag(row, followed.has(row.id), urls))
      },
    })
    app.get(`/api/${name}/:id/`, {
      schema: { summary: 'One tag', params: IdParams, response: { 200: Tag, ...readErrors } },
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: { name: quick ? 'Quick Tag Instance' : 'Tag Instance', description: 'One topic.' },
      },
      handler: async (request) => {
        const row = await repository().find(request.params.id, quick)
        if (!row) throw NotFound()
        const followed = await repository().followedBy(request.caller?.id ?? null, [row.id])
        return toTag(row, followed.has(row.id), urlsFor(request))
      },
    })
  }
}
