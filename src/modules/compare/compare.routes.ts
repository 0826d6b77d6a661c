import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { toUserCompare } from './compare.mapper.ts'
import { compareRepository } from './compare.repository.ts'
import {
  CompareMany,
  CompareUsers,
  CompareUsersQuick,
  FriendsCompare,
  ManyQuery,
  PairQuery,
  UserCompare,
  UserCompareQuery,
} from './compare.schemas.ts'
import { compareFriendsAndTrustees, compareMany, comparePair, comparePairQuick } from './compare.service.ts'

const RULES =
  'Over the questions both answered (skips never count; a private answer counts only in comparisons its author makes), ' +
  'the distance is the number of levels between two ratings (0..4), or 0 for the same choice and 4 for another. See docs/compare.md.'

/** Comparisons between people (compare_users, compare_n_users_quick, user_compare, compare_users_quick, users_fd_compare). */
export function compareRoutes(app: App): void {
  app.get('/api/compare_users/', {
    schema: {
      summary: 'Compare two people: distances, topics, and the questions that separate and unite them most',
      description: `${RULES} A signed-in caller comparing themselves (usera) keeps the figures for their latest_compare.`,
      querystring: PairQuery,
      response: { 200: CompareUsers, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Compare Users', description: 'How far apart two people answer, overall and per topic.' },
    },
    handler: async (request) => comparePair(app.db, request.caller, request.query.usera, request.query.userb),
  })

  app.get('/api/compare_users_quick/', {
    schema: {
      summary: 'The quick figures of one pair of people',
      description: `${RULES} difference_percent is null below 5 common questions.`,
      querystring: PairQuery,
      response: { 200: CompareUsersQuick, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Compare Users Quick', description: 'The distance histogram and difference of two people.' },
    },
    handler: async (request) => comparePairQuick(app.db, request.caller, request.query.usera, request.query.userb),
  })

  app.get('/api/compare_n_users_quick/', {
    schema: {
      summary: 'One person against many (up to 1,000): quick figures per person',
      description: `${RULES} One statement for the comparison whatever the number of people; people with nothing in common appear with zeros and null.`,
      querystring: ManyQuery,
      response: { 200: CompareMany, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Compare N Users Quick', description: 'One person against a list of people, by id.' },
    },
    handler: async (request) => compareMany(app.db, request.caller, request.query.usera, request.query.users),
  })

  listRoute(app, '/api/user_compare/', {
    summary: "The caller's kept comparisons, newest first",
    description: 'Each person the caller compared themselves with, with the figures of the last comparison. Filter by `other`.',
    querystring: UserCompareQuery,
    item: UserCompare,
    config: {
      access: 'signed-in',
      resource: { name: 'User Compare List', description: 'Your comparisons with other people, as last made.' },
    },
    rows: (request, list) => compareRepository(app.db).page(request.query, signedIn(request).id, list),
    items: (rows) => rows.map(toUserCompare),
  })

  app.get('/api/users_fd_compare/', {
    schema: {
      summary: 'The caller against each friend and each person they delegate to',
      description: `${RULES} Friends: accepted friendships either way; delegates: trustees of the caller's live tag and question delegations.`,
      response: { 200: FriendsCompare, ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Users FD Compare', description: 'How far you are from your friends and the people you delegate to.' },
    },
    handler: async (request) => compareFriendsAndTrustees(app.db, signedIn(request)),
  })
}
