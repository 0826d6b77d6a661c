import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { TAG_ORDERING, tagsRepository, toTag, type TagRow } from './tags.repository.ts'
import { Tag, TagListQuery, type TagListQuery as TagFilters } from './tags.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function tagRoutes(app: App): void {
  const repository = () => tagsRepository(app.db)

  for (const [name, quick] of [
    ['tags', false],
    ['quick_tags', true],
  ] as const) {
    app.get(`/api/${name}/`, {
      schema: {
        summary: quick ? 'Featured tags for quick picking' : 'Tags (topics) of questions',
        querystring: TagListQuery,
        response: { 200: Page(Tag), ...readErrors },
      },
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
      handler: async (request) => {
        const filters = request.query as TagFilters
        const urls = urlsFor(request)
        const fallback = quick ? ['quick_order'] : ['text']
        const fields = quick ? { ...TAG_ORDERING, quick_order: column('tags.quick_order') } : TAG_ORDERING
        const ordering = orderingTerms(filters.ordering, fields, fallback, column('tags.id'))
        const result = await pageOfRows<TagRow>(request, repository().filtered({ ...filters, quick }), (q) => q.selectAll('tags'), ordering)
        return listing(request, result, async (rows) => {
          const followed = await repository().followedBy(
            request.caller?.id ?? null,
            rows.map((row) => row.id),
          )
          return rows.map((row) => toTag(row, followed.has(row.id), urls))
        })
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
        const [row] = await repository().filtered({ id: request.params.id, quick }).selectAll('tags').execute()
        if (!row) throw NotFound()
        const followed = await repository().followedBy(request.caller?.id ?? null, [row.id])
        return toTag(row, followed.has(row.id), urlsFor(request))
      },
    })
  }
}
