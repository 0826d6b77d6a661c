import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { fieldError } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { ListQuery, Url } from '../../http/schemas.ts'
import { searchQuery } from '../questions/question-filters.ts'
import { SEARCH_KINDS, searchPage, type SearchKind } from './search.repository.ts'
import { urlsFor } from '../../http/urls.ts'

const KIND_LIST = `^(${SEARCH_KINDS.join('|')})(,(${SEARCH_KINDS.join('|')}))*$`

const SearchQuery = ListQuery({
  search: Type.Optional(Type.String({ maxLength: 500, description: 'the words; each matches as a prefix ("demo" finds "democracy")' })),
  q: Type.Optional(Type.String({ maxLength: 500, description: 'the same as search' })),
  kind: Type.Optional(Type.String({ maxLength: 200, pattern: KIND_LIST, description: `comma-separated: ${SEARCH_KINDS.join(', ')}` })),
})

const SearchHit = Type.Object({
  kind: Type.Enum([...SEARCH_KINDS]),
  id: Type.Integer(),
  url: Url,
  title: Type.String({ description: "a question's text, a collection's name, a person's name, a tag, an area's name" }),
  snippet: Type.String({ description: 'the description, biography or kind of area; empty for a tag' }),
  rank: Type.Number({ description: 'relevance: higher first; a match in the title outweighs one in the description' }),
})

/** Where each kind of hit lives in the API. */
const RESOURCE_OF: Record<SearchKind, string> = {
  question: 'questions',
  collection: 'question_collections',
  user: 'users',
  tag: 'tags',
  area: 'geos',
}

/** One ranked search across questions, collections, people, tags and areas. */
export function searchRoutes(app: App): void {
  listRoute(app, '/api/search/', {
    summary: 'Search questions, collections, people, tags and areas',
    description:
      'PostgreSQL full-text search, every word matched as a prefix, ranked with titles above descriptions. ' +
      'Only what the caller may see: published questions (and the caller’s own drafts), active accounts. ' +
      '`kind` narrows it to some kinds.',
    querystring: SearchQuery,
    item: SearchHit,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: {
        name: 'Search',
        description: 'One ranked search across questions, collections, people, tags and areas: ?search=<words>.',
      },
    },
    rows: (request, list) => {
      const { search, q, kind } = request.query
      const text = (search ?? q ?? '').trim()
      if (text === '') throw fieldError('search', 'This field is required.')
      const words = searchQuery(text)
      if (words === null) throw fieldError('search', 'Give at least one word of letters or digits.')
      const kinds = kind ? ([...new Set(kind.split(','))] as SearchKind[]) : SEARCH_KINDS
      return searchPage(app.db, request.caller ?? null, words, kinds, list)
    },
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => ({
        kind: row.kind,
        id: row.id,
        url: urls.detail(RESOURCE_OF[row.kind], row.id),
        title: row.title,
        snippet: row.snippet,
        rank: Number(row.rank),
      }))
    },
  })
}
