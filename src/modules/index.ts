import type { App } from '../http/app-type.ts'
import { accountManagementRoutes } from './accounts/account-management.routes.ts'
import { accountRoutes } from './accounts/accounts.routes.ts'
import { emailFlowRoutes } from './accounts/email-flows.routes.ts'
import { paymentRoutes } from './accounts/payments.routes.ts'
import { phoneRoutes } from './accounts/phone.routes.ts'
import { socialRoutes } from './accounts/social/social.routes.ts'
import { apiDocsRoutes } from './api-docs/api-docs.routes.ts'
import { areaRoutes } from './areas/areas.routes.ts'
import { echoRoutes } from './auth/echo.routes.ts'
import { censusRoutes } from './census/census.routes.ts'
import { commentRoutes } from './comments/comments.routes.ts'
import { delegationRoutes } from './delegations/delegations.routes.ts'
import { demographicsRoutes } from './demographics/demographics.routes.ts'
import { followingRoutes } from './following/following.routes.ts'
import { groupRoutes } from './groups/groups.routes.ts'
import { healthRoutes } from './health/health.routes.ts'
import { choiceRoutes } from './choices/choices.routes.ts'
import { collectionRoutes } from './collections/collections.routes.ts'
import { nextQuestionRoutes } from './next-question/next-question.routes.ts'
import { pushDeviceRoutes } from './push-devices/push-devices.routes.ts'
import { questionWriteRoutes } from './questions/question-writes.routes.ts'
import { questionRoutes } from './questions/questions.routes.ts'
import { rootRoutes } from './root/root.routes.ts'
import { publicStatsRoutes } from './public-stats/public-stats.routes.ts'
import { staticRoutes } from './static/static.routes.ts'
import { tagRoutes } from './tags/tags.routes.ts'
import { userRoutes } from './users/users.routes.ts'
import { userGeoRoutes } from './user-geos/user-geos.routes.ts'
import { voteRoutes } from './votes/votes.routes.ts'
import { weightingRoutes } from './weighting/weighting.routes.ts'
import { surveyResultsRoutes } from './survey-results/survey-results.routes.ts'
import { opinionGroupsRoutes } from './opinion-groups/opinion-groups.routes.ts'
import { compareRoutes } from './compare/compare.routes.ts'
import { politicianRoutes } from './politicians/politicians.routes.ts'
import { compareQuestionsRoutes } from './compare-questions/compare-questions.routes.ts'
import { friendRoutes } from './friends/friends.routes.ts'
import { analyticsRoutes } from './analytics/analytics.routes.ts'
import { siteInfoRoutes } from './site-info/site-info.routes.ts'
import { shareableLinkRoutes } from './shareable-links/shareable-links.routes.ts'
import { searchRoutes } from './search/search.routes.ts'
import { activityRoutes } from './activity/activity.routes.ts'
import { notificationRoutes } from './notifications/notifications.routes.ts'
import { emailTeamRoutes } from './email-team/email-team.routes.ts'
import { liveRoutes } from './live/live.routes.ts'
import { privateReadRoutes } from './private-reads/private-reads.routes.ts'

export function registerModules(app: App): void {
  healthRoutes(app)
  rootRoutes(app)
  echoRoutes(app)
  accountRoutes(app)
  accountManagementRoutes(app)
  emailFlowRoutes(app)
  socialRoutes(app)
  phoneRoutes(app)
  paymentRoutes(app)
  pushDeviceRoutes(app)
  staticRoutes(app)
  areaRoutes(app)
  userRoutes(app)
  tagRoutes(app)
  questionRoutes(app)
  questionWriteRoutes(app)
  liveRoutes(app)
  nextQuestionRoutes(app)
  voteRoutes(app)
  commentRoutes(app)
  groupRoutes(app)
  collectionRoutes(app)
  followingRoutes(app)
  delegationRoutes(app)
  choiceRoutes(app)
  censusRoutes(app)
  publicStatsRoutes(app)
  userGeoRoutes(app)
  demographicsRoutes(app)
  weightingRoutes(app)
  surveyResultsRoutes(app)
  opinionGroupsRoutes(app)
  compareRoutes(app)
  politicianRoutes(app)
  compareQuestionsRoutes(app)
  friendRoutes(app)
  analyticsRoutes(app)
  siteInfoRoutes(app)
  shareableLinkRoutes(app)
  searchRoutes(app)
  activityRoutes(app)
  notificationRoutes(app)
  emailTeamRoutes(app)
  privateReadRoutes(app)
  apiDocsRoutes(app)
}
