import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { Type } from 'typebox'
import { baseUrl } from '../../http/urls.ts'

/** Spec 4.5: every resource name of the API root, in the spec's order. */
export const API_NAMES = [
  'help',
  'licence',
  'users',
  'groups',
  'questions',
  'group_question_connections',
  'question_votes',
  'question_votes_light',
  'question_choice_votes',
  'question_choice_votes_light',
  'comment_votes',
  'question_tag_votes',
  'comments',
  'question_question_connections',
  'question_question_connection_votes',
  'tags',
  'quick_tags',
  'group_memberships',
  'tag_delegations',
  'question_collections',
  'question_collections_full',
  'question_collection_items',
  'question_collection_items_full',
  'question_collection_users',
  'question_collection_tags',
  'collection_stats',
  'question_tags',
  'friends',
  'following_users',
  'following_tags',
  'group_invites',
  'group_join_requests',
  'vote_comments',
  'question_links',
  'question_choices',
  'geos',
  'simple_geos',
  'user_geos',
  'user_count',
  'question_stats',
  'question_demographics',
  'question_weighted_demographics',
  'question_geographics',
  'question_history',
  'question_history_simple',
  'question_delegation',
  'next_question',
  'next_question_light',
  'census_data',
  'notifications',
  'notification_settings',
  'user_compare',
  'compare_users',
  'compare_users_quick',
  'compare_n_users_quick',
  'users_fd_compare',
  'compare_questions',
  'email_team',
  'general_limits',
  'general_stats',
  'advanced_stats',
  'relevant_activity',
  'create_shareable_link',
  'politician',
  'simple_politicians',
  'simple_politicians_geos',
  'user_politician',
  'search',
  'survey_results',
  'survey_results_all',
  'analytics_event/chatbot_join',
  'analytics_event/chatbot_message',
  'analytics_event/url_share',
  'analytics_event/clicks',
] as const

/** Names the root maps to another resource's URL (spec 4.5). */
export const API_ALIASES: Record<string, string> = {
  users: 'user_politician',
  question_votes: 'question_votes_light',
  question_choice_votes: 'question_choice_votes_light',
  next_question: 'next_question_light',
}

/** Spec 4.6: the account operations, each at /auth/<name>/. */
export const AUTH_NAMES = [
  'check_login',
  'echo',
  'check_email',
  'register',
  'request_confirm_email',
  'confirm_email',
  'login',
  'logout',
  'me',
  'change-password',
  'password-reset',
  'password-reset-confirm',
  'deactivate-account',
  'delete-account',
  'social3',
  'social4',
  'payment_subscription',
  'payment_subscription_list',
  'token-only-social-auth',
  'session-social-auth',
  'verification_sms_send',
  'verification_add',
  'verification_remove',
  'social_auth',
  'onetime_signin',
] as const

function formatSuffix(request: FastifyRequest): string {
  return (request.query as { format?: string }).format === 'api' ? '?format=api' : ''
}

// A name whose resource is not served yet is left out of the index, so the root never advertises a 404.
const Index = (names: readonly string[]) =>
  Type.Object(Object.fromEntries(names.map((name) => [name, Type.Optional(Type.String({ format: 'uri' }))])))

/** The names whose resource has a GET route, worked out once every route is registered. */
function servedNames(app: App, names: readonly string[], path: (name: string) => string): () => string[] {
  let served: string[] | null = null
  return () => (served ??= names.filter((name) => app.hasRoute({ method: 'GET', url: path(name) })))
}

export function rootRoutes(app: App): void {
  const apiIndex = Index(API_NAMES)
  const apiNames = servedNames(app, API_NAMES, (name) => `/api/${API_ALIASES[name] ?? name}/`)
  app.get('/api/', {
    schema: { summary: 'API root: every resource name and its URL', response: { 200: apiIndex } },
    config: { access: 'anyone', resource: { name: 'Api Root', description: 'The resources of the Civic Survey API and their URLs.' } },
    handler: async (request) => {
      const base = baseUrl(request)
      const suffix = formatSuffix(request)
      return Object.fromEntries(apiNames().map((name) => [name, `${base}/api/${API_ALIASES[name] ?? name}/${suffix}`]))
    },
  })

  const authIndex = Index(AUTH_NAMES)
  const authNames = servedNames(app, AUTH_NAMES, (name) => `/auth/${name}/`)
  app.get('/auth/', {
    schema: { summary: 'Account operations and their URLs', response: { 200: authIndex } },
    config: {
      access: 'anyone',
      resource: { name: 'Auth Root', description: 'Account operations: sign-in, registration, passwords, verification.' },
    },
    handler: async (request) => {
      const base = baseUrl(request)
      const suffix = formatSuffix(request)
      return Object.fromEntries(authNames().map((name) => [name, `${base}/auth/${name}/${suffix}`]))
    },
  })
}
