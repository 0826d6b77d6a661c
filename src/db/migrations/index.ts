// The previous release runs on the migrated database while the processes roll: a migration only expands what it
// uses (adds, backfills); dropping or changing it waits for a later release (docs/operations.md, Upgrading a running
// deployment). test/db/expand-contract.test.ts checks every new migration.
import type { Migration } from 'kysely'
import * as initialSchema from './2026-11-22-001-initial-schema.ts'
import * as accounts from './2026-11-22-002-accounts.ts'
import * as socialLoginStates from './2026-11-22-003-social-login-states.ts'
import * as oneChoiceAnswerPerQuestion from './2026-11-22-004-one-choice-answer-per-question.ts'
import * as activityTimeIndexes from './2026-11-23-005-activity-time-indexes.ts'
import * as liquidResolution from './2026-11-23-006-liquid-resolution.ts'
import * as nextQuestionIndexes from './2026-11-23-007-next-question-indexes.ts'
import * as liquidIntreeProbe from './2026-11-23-008-liquid-intree-probe.ts'
import * as resultsCoveringIndexes from './2026-11-23-009-results-covering-indexes.ts'
import * as comparisons from './2026-11-23-010-comparisons.ts'
import * as dataChangeNotices from './2026-11-23-011-data-change-notices.ts'
import * as notificationChannels from './2026-11-24-012-notification-channels.ts'
import * as searchIndexes from './2026-11-24-013-search-indexes.ts'
import * as shareableLinksAndTeamMessages from './2026-11-24-014-shareable-links-and-team-messages.ts'
import * as liveFiguresNotices from './2026-11-25-015-live-figures-notices.ts'
import * as disclosureControl from './2026-11-26-016-disclosure-control.ts'
import * as publicAnswerIndexes from './2026-11-26-020-public-answer-indexes.ts'
import * as auditIndexes from './2026-11-26-021-audit-indexes.ts'
import * as publishedFigureFunctions from './2026-11-26-022-published-figure-functions.ts'
import * as noticesAfterCommit from './2026-11-26-023-notices-after-commit.ts'
import * as credentialsNotices from './2026-11-26-024-credentials-notices.ts'
import * as opinionGroups from './2026-11-26-025-opinion-groups.ts'
import * as questionSetVersion from './2026-11-26-026-question-set-version.ts'
import * as answerContext from './2026-11-27-027-answer-context.ts'
import * as generatedFigures from './2026-11-27-028-generated-figures.ts'
import * as firstAnswerCall from './2026-11-27-029-first-answer-call.ts'
import * as firstPickCall from './2026-11-27-030-first-pick-call.ts'
import * as liquidBlocks from './2026-11-27-031-liquid-blocks.ts'
import * as replacingAnswerCall from './2026-11-27-032-replacing-answer-call.ts'
import * as withdrawingAnswerCall from './2026-11-27-033-withdrawing-answer-call.ts'
import * as editingAnswerCall from './2026-11-27-034-editing-answer-call.ts'
import * as keptBlocksFollow from './2026-11-27-035-kept-blocks-follow.ts'
import * as oneChainWalk from './2026-11-27-036-one-chain-walk.ts'
import * as keptKeysAndOwnRecords from './2026-11-28-037-kept-keys-and-own-records.ts'
import * as privateAnswerBatches from './2026-11-28-038-private-answer-batches.ts'
import * as privateCommentVotes from './2026-11-28-039-private-comment-votes.ts'
import * as opinionGroupsPublishedInput from './2026-11-28-040-opinion-groups-published-input.ts'
import * as publishedTagCounts from './2026-11-28-041-published-tag-counts.ts'
import * as commentVoteBatches from './2026-11-28-042-comment-vote-batches.ts'
import * as releasedTagCounts from './2026-11-28-043-released-tag-counts.ts'
import * as oneAnswerPath from './2026-11-28-044-one-answer-path.ts'
import * as liquidDelegationOrder from './2026-11-28-045-liquid-delegation-order.ts'
import * as answersWithoutQueue from './2026-11-28-046-answers-without-queue.ts'
import * as restorableFigureFunctions from './2026-11-28-047-restorable-figure-functions.ts'
import * as answerChecksPlannedOnce from './2026-11-29-048-answer-checks-planned-once.ts'
import * as foldByIndex from './2026-11-29-049-fold-by-index.ts'
import * as answerPlansKept from './2026-11-29-050-answer-plans-kept.ts'
import * as userAnswerCounts from './2026-11-29-051-user-answer-counts.ts'
import * as answerReachPrefilter from './2026-11-29-052-answer-reach-prefilter.ts'
import * as answerCountsInOneStatement from './2026-11-29-053-answer-counts-in-one-statement.ts'
import * as liquidWeightsAsDeltas from './2026-11-30-054-liquid-weights-as-deltas.ts'
import * as unreleasedTagCountsAsDeltas from './2026-11-30-055-unreleased-tag-counts-as-deltas.ts'
import * as unreleasedCountPlannedOnce from './2026-11-30-056-unreleased-count-planned-once.ts'
import * as answerCountersAfterTheGroup from './2026-11-30-057-answer-counters-after-the-group.ts'
import * as answerMovesAtTheGroupEnd from './2026-11-30-058-answer-moves-at-the-group-end.ts'
import * as answerStatementsHalved from './2026-11-30-059-answer-statements-halved.ts'
import * as figureSourcesPlannedOnce from './2026-11-30-060-figure-sources-planned-once.ts'
import * as loneFirstAnswersInsertedTogether from './2026-11-30-061-lone-first-answers-inserted-together.ts'

/** Every migration in the order it applies; names never change once released. */
export const migrations: Record<string, Migration> = {
  '2026-11-22-001-initial-schema': initialSchema,
  '2026-11-22-002-accounts': accounts,
  '2026-11-22-003-social-login-states': socialLoginStates,
  '2026-11-22-004-one-choice-answer-per-question': oneChoiceAnswerPerQuestion,
  '2026-11-23-005-activity-time-indexes': activityTimeIndexes,
  '2026-11-23-006-liquid-resolution': liquidResolution,
  '2026-11-23-007-next-question-indexes': nextQuestionIndexes,
  '2026-11-23-008-liquid-intree-probe': liquidIntreeProbe,
  '2026-11-23-009-results-covering-indexes': resultsCoveringIndexes,
  '2026-11-23-010-comparisons': comparisons,
  '2026-11-23-011-data-change-notices': dataChangeNotices,
  '2026-11-24-012-notification-channels': notificationChannels,
  '2026-11-24-013-search-indexes': searchIndexes,
  '2026-11-24-014-shareable-links-and-team-messages': shareableLinksAndTeamMessages,
  '2026-11-25-015-live-figures-notices': liveFiguresNotices,
  '2026-11-26-016-disclosure-control': disclosureControl,
  '2026-11-26-020-public-answer-indexes': publicAnswerIndexes,
  '2026-11-26-021-audit-indexes': auditIndexes,
  '2026-11-26-022-published-figure-functions': publishedFigureFunctions,
  '2026-11-26-023-notices-after-commit': noticesAfterCommit,
  '2026-11-26-024-credentials-notices': credentialsNotices,
  '2026-11-26-025-opinion-groups': opinionGroups,
  '2026-11-26-026-question-set-version': questionSetVersion,
  '2026-11-27-027-answer-context': answerContext,
  '2026-11-27-028-generated-figures': generatedFigures,
  '2026-11-27-029-first-answer-call': firstAnswerCall,
  '2026-11-27-030-first-pick-call': firstPickCall,
  '2026-11-27-031-liquid-blocks': liquidBlocks,
  '2026-11-27-032-replacing-answer-call': replacingAnswerCall,
  '2026-11-27-033-withdrawing-answer-call': withdrawingAnswerCall,
  '2026-11-27-034-editing-answer-call': editingAnswerCall,
  '2026-11-27-035-kept-blocks-follow': keptBlocksFollow,
  '2026-11-27-036-one-chain-walk': oneChainWalk,
  '2026-11-28-037-kept-keys-and-own-records': keptKeysAndOwnRecords,
  '2026-11-28-038-private-answer-batches': privateAnswerBatches,
  '2026-11-28-039-private-comment-votes': privateCommentVotes,
  '2026-11-28-040-opinion-groups-published-input': opinionGroupsPublishedInput,
  '2026-11-28-041-published-tag-counts': publishedTagCounts,
  '2026-11-28-042-comment-vote-batches': commentVoteBatches,
  '2026-11-28-043-released-tag-counts': releasedTagCounts,
  '2026-11-28-044-one-answer-path': oneAnswerPath,
  '2026-11-28-045-liquid-delegation-order': liquidDelegationOrder,
  '2026-11-28-046-answers-without-queue': answersWithoutQueue,
  '2026-11-28-047-restorable-figure-functions': restorableFigureFunctions,
  '2026-11-29-048-answer-checks-planned-once': answerChecksPlannedOnce,
  '2026-11-29-049-fold-by-index': foldByIndex,
  '2026-11-29-050-answer-plans-kept': answerPlansKept,
  '2026-11-29-051-user-answer-counts': userAnswerCounts,
  '2026-11-29-052-answer-reach-prefilter': answerReachPrefilter,
  '2026-11-29-053-answer-counts-in-one-statement': answerCountsInOneStatement,
  '2026-11-30-054-liquid-weights-as-deltas': liquidWeightsAsDeltas,
  '2026-11-30-055-unreleased-tag-counts-as-deltas': unreleasedTagCountsAsDeltas,
  '2026-11-30-056-unreleased-count-planned-once': unreleasedCountPlannedOnce,
  '2026-11-30-057-answer-counters-after-the-group': answerCountersAfterTheGroup,
  '2026-11-30-058-answer-moves-at-the-group-end': answerMovesAtTheGroupEnd,
  '2026-11-30-059-answer-statements-halved': answerStatementsHalved,
  '2026-11-30-060-figure-sources-planned-once': figureSourcesPlannedOnce,
  '2026-11-30-061-lone-first-answers-inserted-together': loneFirstAnswersInsertedTogether,
}
