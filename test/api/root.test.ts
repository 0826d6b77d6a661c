import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('empty')
})
after(() => t.close())

// Spec 4.5, in its order.
const NAMES =
  `help, licence, users, groups, questions, group_question_connections, question_votes, question_votes_light, question_choice_votes, question_choice_votes_light, comment_votes, question_tag_votes, comments, question_question_connections, question_question_connection_votes, tags, quick_tags, group_memberships, tag_delegations, question_collections, question_collections_full, question_collection_items, question_collection_items_full, question_collection_users, question_collection_tags, collection_stats, question_tags, friends, following_users, following_tags, group_invites, group_join_requests, vote_comments, question_links, question_choices, geos, simple_geos, user_geos, user_count, question_stats, question_demographics, question_weighted_demographics, question_geographics, question_history, question_history_simple, question_delegation, next_question, next_question_light, census_data, notifications, notification_settings, user_compare, compare_users, compare_users_quick, compare_n_users_quick, users_fd_compare, compare_questions, email_team, general_limits, general_stats, advanced_stats, relevant_activity, create_shareable_link, politician, simple_politicians, simple_politicians_geos, user_politician, search, survey_results, survey_results_all, analytics_event/chatbot_join, analytics_event/chatbot_message, analytics_event/url_share, analytics_event/clicks`.split(
    ', ',
  )

const AUTH_NAMES =
  `check_login, echo, check_email, register, request_confirm_email, confirm_email, login, logout, me, change-password, password-reset, password-reset-confirm, deactivate-account, delete-account, social3, social4, payment_subscription, payment_subscription_list, token-only-social-auth, session-social-auth, verification_sms_send, verification_add, verification_remove, social_auth, onetime_signin`.split(
    ', ',
  )

test('GET /api/ maps every served name of spec 4.5 to its URL, in order, with the four exceptions; none it lists answers 404', async () => {
  const response = await t.get('/api/', { host: 'api.example.org' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS')
  const body = response.json()
  const exceptions: Record<string, string> = {
    users: 'user_politician',
    question_votes: 'question_votes_light',
    question_choice_votes: 'question_choice_votes_light',
    next_question: 'next_question_light',
  }
  const served: string[] = []
  for (const name of NAMES) {
    const path = `/api/${exceptions[name] ?? name}/`
    if ((await t.get(path)).statusCode !== 404) served.push(name)
  }
  assert.ok(served.includes('questions') && served.includes('users') && served.length >= 40, served.join(', '))
  assert.deepEqual(Object.keys(body), served)
  for (const name of served) assert.equal(body[name], `http://api.example.org/api/${exceptions[name] ?? name}/`, name)
})

test('with format=api every URL carries the parameter', async () => {
  const page = await t.get('/api/?format=api', { accept: 'application/json' })
  assert.match(page.body, /<h1>Api Root<\/h1>/)
  assert.match(page.body, /\/api\/questions\/\?format=api/)
})

test('GET /auth/ maps every account operation of spec 4.6 to /auth/<name>/', async () => {
  const response = await t.get('/auth/', { host: 'api.example.org' })
  assert.equal(response.statusCode, 200)
  const body = response.json()
  assert.deepEqual(Object.keys(body), AUTH_NAMES)
  for (const name of AUTH_NAMES) assert.equal(body[name], `http://api.example.org/auth/${name}/`)
})

test('PUBLIC_URL replaces the request host in every URL', async () => {
  const behindProxy = await createTestApp('empty', { PUBLIC_URL: 'https://api.civic.example' })
  try {
    assert.equal((await behindProxy.json('/api/')).questions, 'https://api.civic.example/api/questions/')
  } finally {
    await behindProxy.close()
  }
})
