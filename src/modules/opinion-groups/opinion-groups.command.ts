import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { csvDocument } from '../demographics/demographics.mapper.ts'
import { opinionGroupsRepository, type OpinionScope } from './opinion-groups.repository.ts'
import { recomputeOpinionGroups, type PublishingOptions, type ResearchOptions } from './opinion-groups.service.ts'

/**
 * `civic-survey opinion-groups --collection ID`: every participant's group (empty: too few answers to be grouped)
 * and place, recomputed now, as CSV, for the operator's own research and checks; `placed` says whether the model
 * placed them (`model`) or they were projected onto its plane, holding only private answers while fewer than
 * MIN_CELL_SIZE people do (`projection`, never grouped by the model). The API never gives anyone's place but the
 * caller's own. With `research` (`--groups K`, `--polis-code DATE`) the groups are computed for the operator
 * alone and not kept: what the API serves stays as it was. Null: no such scope.
 */
export async function opinionGroupPlacesCsv(
  db: Kysely<Database>,
  scope: OpinionScope,
  scopeId: number,
  options: PublishingOptions,
  research: ResearchOptions | null = null,
): Promise<string | null> {
  const repository = opinionGroupsRepository(db)
  if (!(await repository.scopeExists(scope, scopeId))) return null
  // The model's own groups, small ones included: the operator sees what the disclosure rules hold back.
  const { result, projected } = await recomputeOpinionGroups(db, scope, scopeId, options, research)
  const { participants } = result
  return csvDocument(
    ['account_id', 'group', 'x', 'y', 'placed'],
    [
      ...participants.accountIds.map((account, i) => [
        account,
        participants.group[i] < 0 ? null : participants.group[i],
        participants.x[i],
        participants.y[i],
        'model',
      ]),
      ...projected.accountIds.map((account, i) => [account, null, projected.x[i], projected.y[i], 'projection']),
    ],
  )
}
