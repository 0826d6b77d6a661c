import { parseArgs } from 'node:util'
import { parseCommandArgs, UsageError, type Command } from './command.ts'
import { withMigratedDatabase } from './database.ts'
import { parseIsoDate } from '../import/values.ts'

export const recompute: Command = {
  name: 'recompute',
  usage: [
    [
      'recompute [--liquid]',
      'rebuild every stored figure and counter from the raw rows;',
      '--liquid first resolves every delegation again',
    ],
  ],
  async run(config, args) {
    const { values } = parseArgs({ args, options: { liquid: { type: 'boolean', default: false } } })
    const { rebuildAllLiquid } = await import('../engines/liquid/liquid.rebuild.ts')
    const { recomputeStatistics } = await import('../engines/figures/recompute.ts')
    await withMigratedDatabase(config, async ({ db }) => {
      if (values.liquid) {
        const changed = await rebuildAllLiquid(
          db,
          true,
          (done, total) => done % 500 === 0 && console.error(`delegations: ${done}/${total} questions`),
        )
        console.error(`delegations resolved again: ${changed.length} stored values corrected`)
      }
      await recomputeStatistics(db)
      console.error('every stored figure and counter recomputed from the raw rows')
    })
  },
}

/** Prints each difference on a line; the status says whether there was any. */
export const check: Command = {
  name: 'check',
  usage: [['check', 'report every stored figure that differs from a recomputation', '(exit status 1 when any does)']],
  async run(config) {
    const { rebuildAllLiquid } = await import('../engines/liquid/liquid.rebuild.ts')
    const { storedFigureDifferences } = await import('../engines/figures/check.ts')
    const { unreleasedProblems } = await import('../disclosure/batches.ts')
    return withMigratedDatabase(config, async ({ db }) => {
      const liquid = await rebuildAllLiquid(db, false)
      for (const d of liquid) console.log(`liquid\tquestion ${d.question}\t${d.what}\tstored ${d.stored}\tresolved ${d.resolved}`)
      const figures = await storedFigureDifferences(db)
      for (const d of figures)
        console.log(`figure\t${d.table} ${d.id}\t${d.column}\tstored ${String(d.stored)}\trecomputed ${String(d.recomputed)}`)
      const unreleased = await unreleasedProblems(db)
      for (const p of unreleased) console.log(`unreleased\tquestion ${p.question}${p.user === null ? '' : `\tuser ${p.user}`}\t${p.what}`)
      const total = liquid.length + figures.length + unreleased.length
      console.error(total === 0 ? 'every stored figure equals a recomputation' : `${total} stored values differ from a recomputation`)
      return total === 0 ? 0 : 1
    })
  },
}

/** The operator's view of the opinion groups: everyone's group and place, which the API never gives. */
export const opinionGroups: Command = {
  name: 'opinion-groups',
  usage: [
    [
      'opinion-groups --collection ID [--groups K] [--polis-code YYYY-MM-DD]',
      'recompute the opinion groups of those questions (or --tag ID, --group ID)',
      "and print every participant's group and place as CSV; --groups K: the",
      'groups at that k, --polis-code: a collection imported from Pol.is drawn',
      "as Pol.is's code of that date drew it (either: computed, not kept)",
    ],
  ],
  async run(config, args) {
    const { values } = parseCommandArgs('opinion-groups', args, {
      collection: { type: 'string' },
      tag: { type: 'string' },
      group: { type: 'string' },
      groups: { type: 'string' },
      'polis-code': { type: 'string' },
    })
    const given = (['collection', 'tag', 'group'] as const).filter((scope) => values[scope] !== undefined)
    if (given.length !== 1) throw new UsageError('opinion-groups needs one of --collection ID, --tag ID, --group ID')
    const scope = given[0]
    const id = Number(values[scope])
    if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647)
      throw new UsageError(`opinion-groups: --${scope} must be an id, not "${values[scope]}"`)
    const research = researchOptions(values.groups, values['polis-code'])
    await withMigratedDatabase(config, async ({ db }) => {
      const { opinionGroupPlacesCsv } = await import('../modules/opinion-groups/opinion-groups.command.ts')
      const csv = await opinionGroupPlacesCsv(
        db,
        scope,
        id,
        { minCellSize: config.minCellSize, weightCap: config.weightCap, answersPerRead: config.opinionGroupsAnswersPerRead },
        research,
      )
      if (csv === null) throw new UsageError(`opinion-groups: there is no ${scope} ${id}`)
      process.stdout.write(csv)
    })
  },
}

/** `--groups K` (2 to 20) and `--polis-code YYYY-MM-DD`, checked; null when neither is given. */
function researchOptions(groups: string | undefined, polisCode: string | undefined) {
  if (groups === undefined && polisCode === undefined) return null
  const k = groups === undefined ? undefined : Number(groups)
  if (k !== undefined && !(Number.isInteger(k) && k >= 2 && k <= 20))
    throw new UsageError(`opinion-groups: --groups must be a number of groups from 2 to 20, not "${groups}"`)
  const date = polisCode === undefined ? undefined : parseIsoDate(polisCode)
  if (date === null) throw new UsageError(`opinion-groups: --polis-code must be a date YYYY-MM-DD, not "${polisCode}"`)
  return { groupCount: k, polisCode: date === undefined ? undefined : new Date(`${date}T00:00:00Z`) }
}
