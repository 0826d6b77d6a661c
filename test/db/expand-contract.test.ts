import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Migrator, sql, type Kysely } from 'kysely'
import { migrations } from '../../src/db/migrations/index.ts'
import { commandDatabase } from '../helpers/databases.ts'
import { USER_ANSWER_COUNTERS } from '../../src/engines/figures/recompute.repository.ts'

/**
 * The upgrade rule (docs/operations.md, Upgrading a running deployment): during a rolling upgrade the previous
 * release runs on the migrated database, so a migration only expands. Before and after each migration from
 * FIRST_CHECKED on, the catalog is read (tables, views, columns with type, nullability, default and generation,
 * functions with their parameters, result and body, triggers, constraints) and whatever the migration took away,
 * changed, or now refuses is a violation, unless ALLOWED names it with its reason. A body is compared with `public.`
 * taken out of it, since naming a function's schema changes nothing it does.
 */

/** The cut-off: the eleven migrations before the rule was written down, and every one after them. */
const FIRST_CHECKED = '2026-11-28-037-kept-keys-and-own-records'

// The reasons were checked against the previous release's code: the tree before the commit that added the migration.
const STOP_038 =
  'the release rule became batches of k: the previous release orders and counts with it beside figures it computes ' +
  'under the k-th rule (src/disclosure/figures.ts); an upgrade across 038 stops every process'
const TAG_TRIGGERS =
  "the tags' private counts' trigger machinery, called only by the database (the previous release names none of it); " +
  'the new triggers keep tags.published_votes_count, the column it reads'
const TAG_PUBLISHED =
  'published_votes_count became votes_count less the unreleased answers instead of the tag-wide threshold: the ' +
  'previous release reads only the column, now the stricter count'
const GENERAL_PATH =
  "the previous release's general answer path called it (vote-context.repository.ts); the new calls never send it " +
  'there, but a collection that is not an id still does (a 500): an upgrade across 044 stops every process'
const INNER_044 = 'called only by the answer calls replaced in the same migration; the previous release never names it'
const CARRIED_044 =
  "going private and carrying others' votes moved into the call, which never answers 'general' now: the previous " +
  'release reads its columns by name (the new ones pass) but tells delegators only on its general path, so answers ' +
  'through it notify nobody; an upgrade across 044 stops every process'
const PLPGSQL_048 =
  'the same expression in PL/pgSQL instead of SQL, so its plans are kept per connection: the same answer for every ' +
  'argument, whoever calls it (the previous release through the answer calls, and liquid_intree in its liquid reads)'
const GATE_046 =
  "answers take the question's answering gate instead of locking its row, and append their counts as deltas: the " +
  "previous release's writers of the rules lock only the row, it reads the stored counts without the deltas, and its " +
  'recompute would add them twice; an upgrade across 046 stops every process'

const COUNTS_051 =
  "the answer counters moved off users into user_answer_counts: the previous release reads them on users (its users' " +
  'listings, details and orderings) and its recompute and check rewrite them there; an upgrade across 051 stops every process'

/** migration -> violation -> why it was let through. Nothing may be added for a migration not yet released. */
/** The casts' parameter types, as the checks name their functions. */
const CAST_SIGNATURES: Record<string, string> = {
  likert: 'integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text',
  pick: 'integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text',
}

const ALLOWED: Record<string, Record<string, string>> = {
  '2026-11-28-037-kept-keys-and-own-records': {
    'function bump_question_set_version() changed its body':
      'it also announces each move on question_set; the previous release reads the version from its table, as before',
    'trigger questions.questions_question_set changed':
      'it also fires on a change of author: the version moves more often, never less, so the previous release only walks again',
  },
  '2026-11-28-038-private-answer-batches': {
    'function withheld_answer_count(integer,integer) changed its body': STOP_038,
    'function withheld_answers(integer,integer,integer) changed its body': STOP_038,
  },
  '2026-11-28-043-released-tag-counts': {
    'column tags.private_votes_count dropped':
      "the previous release's check and recompute read and rewrite it (src/engines/figures), serving never did: run them from the new release",
    'function follow_private_tag_votes() dropped': TAG_TRIGGERS,
    'function follow_question_tag_private_votes() dropped': TAG_TRIGGERS,
    'function follow_topic_private_votes() dropped': TAG_TRIGGERS,
    'function forget_question_private_tag_votes() dropped': TAG_TRIGGERS,
    'function move_private_tag_votes(integer,integer) dropped': TAG_TRIGGERS,
    'function private_answer_count(integer) dropped': TAG_TRIGGERS,
    'function published_tag_votes(integer,integer) dropped': TAG_TRIGGERS,
    'function republish_tag_votes() dropped': TAG_TRIGGERS,
    'trigger disclosure_settings.disclosure_settings_tag_votes dropped': TAG_TRIGGERS,
    'trigger question_tags.question_tags_private_tag_votes dropped': TAG_TRIGGERS,
    'trigger question_votes.question_votes_private_tag_votes_delete dropped': TAG_TRIGGERS,
    'trigger question_votes.question_votes_private_tag_votes_insert dropped': TAG_TRIGGERS,
    'trigger question_votes.question_votes_private_tag_votes_update dropped': TAG_TRIGGERS,
    'trigger questions.questions_private_tag_votes_gone dropped': TAG_TRIGGERS,
    'trigger questions.questions_topic_private_tag_votes dropped': TAG_TRIGGERS,
    'function publish_tag_votes() changed its body': TAG_PUBLISHED,
    'trigger tags.tags_published_votes changed': TAG_PUBLISHED,
  },
  '2026-11-28-044-one-answer-path': {
    'function answer_context(integer,integer,integer,text,integer) dropped': GENERAL_PATH,
    'function answer_locked(text,integer,boolean) dropped': GENERAL_PATH,
    'function lock_question_for_answers(integer) dropped':
      'called by answer_context and answer_locked, dropped with it; the previous release names it in comments only',
    'function cast_first_likert(integer,integer,boolean,smallint,boolean,integer,smallint,text,text,text,text,text) dropped': INNER_044,
    'function cast_first_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) dropped': INNER_044,
    'function count_replaced_answer(integer,boolean,boolean,boolean,timestamp with time zone) dropped': INNER_044,
    'function lock_answerable_question(integer,integer,boolean,boolean,integer) changed its body':
      'the window rule moved into window_refusal unchanged; only the answer calls call it',
    'function cast_likert(integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text) changed its body':
      CARRIED_044,
    'function cast_likert(integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text) changed its result':
      CARRIED_044,
    'function cast_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) changed its body': CARRIED_044,
    'function cast_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) changed its result': CARRIED_044,
    'function edit_answer(boolean,integer,boolean,smallint,boolean,boolean,smallint,boolean,boolean,integer) changed its body': CARRIED_044,
    'function withdraw_answer(boolean,integer) changed its body': CARRIED_044,
    'function withdraw_answer(boolean,integer) changed its parameters': CARRIED_044,
  },
  '2026-11-28-045-liquid-delegation-order': {
    'function liquid_parent(integer,integer) changed its body':
      'the same winner as migration 006 picked (the question, the topic, then priority, position, id), now read from liquid_delegations',
  },
  '2026-11-28-046-answers-without-queue': {
    'function cast_likert(integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text) changed its body':
      GATE_046,
    'function cast_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) changed its body': GATE_046,
    'function lock_answerable_question(integer,integer,boolean,boolean,integer) changed its body': GATE_046,
    'function lock_held_answer(boolean,integer) changed its body': GATE_046,
    'function move_choice_counts(integer,smallint,integer,integer) changed its body': GATE_046,
    'function move_likert_counts(integer,smallint,integer,integer,smallint,integer,integer) changed its body': GATE_046,
    'function move_tag_votes(integer,integer) changed its body': GATE_046,
  },
  '2026-11-29-048-answer-checks-planned-once': {
    'function answer_reaches_others(integer,integer,boolean,boolean,integer) changed its body': PLPGSQL_048,
    'function liquid_intree(integer,integer) changed its body': PLPGSQL_048,
  },
  '2026-11-29-049-fold-by-index': {
    'function fold_figure_deltas(boolean,integer[]) changed its body':
      "the same rows folded and the same deleted rows' deltas removed, found through the index instead of by scans: " +
      'the previous release calls it and gets the same effect',
  },
  '2026-11-29-051-user-answer-counts': Object.fromEntries(
    [
      ...USER_ANSWER_COUNTERS.map((name) => `column users.${name} dropped`),
      'function count_user_answer(integer,boolean,boolean,boolean,timestamp with time zone) changed its body',
    ].map((violation) => [violation, COUNTS_051]),
  ),
  '2026-11-29-052-answer-reach-prefilter': {
    'function answer_reaches_others(integer,integer,boolean,boolean,integer) changed its body':
      'it answers false sooner for a voter no delegation touches, and by the same rule otherwise: the same result for every call',
  },
  '2026-11-29-053-answer-counts-in-one-statement': Object.fromEntries(
    [
      'function move_likert_counts(integer,smallint,integer,integer,smallint,integer,integer) changed its body',
      'function move_choice_counts(integer,smallint,integer,integer) changed its body',
      'function count_user_answer(integer,boolean,boolean,boolean,timestamp with time zone) changed its body',
    ].map((violation) => [violation, 'the same rows written with the same values, in fewer statements']),
  ),
  '2026-11-30-054-liquid-weights-as-deltas': {
    'function cast_likert(integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text) changed its body':
      "a first answer of someone nobody delegates to appends the weight it takes from its representative instead of updating that answer's row; the same weights once read",
    'function cast_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) changed its body':
      "the same for picks: the representative's weight as a delta, the same weights once read",
    'function lock_question_answers(integer[]) changed its body':
      'it also folds the liquid deltas of the questions it closes: a writer holding the gate reads whole weights, as the previous release expects',
    'function current_answer(integer,integer) changed its body': 'the weight it returns adds the deltas not yet folded: the same value',
    'function liquid_block(integer,integer) changed its body': 'the weight it returns adds the deltas not yet folded: the same value',
    'function liquid_intree(integer,integer) changed its body': 'the kept size it returns adds the deltas not yet folded: the same value',
    'function liquid_blocks_on_answer() changed its body':
      "it leaves a leaf's answer to the answer call, which moves the same kept sizes with the chain it walked; every other write as before",
    'function liquid_blocks_follow(integer,integer,integer[],boolean,integer) changed its body':
      "in a leaf's answer it appends the kept sizes' change instead of updating them; read with the deltas, the same sizes",
  },
  '2026-11-30-055-unreleased-tag-counts-as-deltas': {
    'view pending_tag_votes changed its definition':
      'it also subtracts the unreleased deltas: the previous release adds it to published_votes_count as before and reads the same count',
    'function fold_figure_deltas(boolean,integer[]) changed its body':
      "the counts' fold under another name, then the unreleased deltas: the previous release's folder, check and recompute call it and fold both",
    'function move_unreleased_tag_votes(integer,integer) changed its body':
      'called only by the database; it appends the same move, which every reader and fold adds',
    'function liquid_representative(integer,integer) changed its body':
      'the same walk in PL/pgSQL instead of SQL: the same answer for every argument',
  },
  '2026-11-30-056-unreleased-count-planned-once': {
    'function unreleased_vote_count(integer) changed its body':
      'the same expression in PL/pgSQL instead of SQL: the same count for every question, whoever calls it',
  },
  '2026-11-30-057-answer-counters-after-the-group': {
    'function count_user_answer(integer,boolean,boolean,boolean,timestamp with time zone) changed its body':
      "outside an answer group (every call of the previous release's) it writes the same counters at once through count_user_answer_now, which holds its body",
  },
  '2026-11-30-058-answer-moves-at-the-group-end': {
    ...Object.fromEntries(
      [
        'function cast_likert(integer,integer,boolean,smallint,boolean,integer,smallint,boolean,text,text,text,text,text) changed its body',
        'function cast_pick(integer,integer,boolean,smallint,boolean,integer,text,text,text,text,text) changed its body',
      ].map((violation) => [
        violation,
        'the same cast (its body moved to cast_*_moves), then the same counts, tags and counters written at once, counters through count_user_answer as before',
      ]),
    ),
    ...Object.fromEntries(
      [
        'function cast_likert_group(integer[],integer[],boolean[],smallint[],boolean[],integer[],smallint[],boolean[],text[],text[],text[],text[],text[]) changed its body',
        'function cast_pick_group(integer[],integer[],boolean[],smallint[],boolean[],integer[],text[],text[],text[],text[],text[]) changed its body',
      ].map((violation) => [
        violation,
        "the same casts in the same order and the same rows returned; the counts' and tags' deltas summed by question, choice and tag, and the counters written in one statement at the end, in person order as before",
      ]),
    ),
    ...Object.fromEntries(
      [
        'function move_likert_counts(integer,smallint,integer,integer,smallint,integer,integer) changed its body',
        'function move_choice_counts(integer,smallint,integer,integer) changed its body',
        'function move_tag_votes(integer,integer) changed its body',
      ].map((violation) => [
        violation,
        'the same deltas through append_figure_deltas and append_tag_vote_deltas; a move of nothing appends no row',
      ]),
    ),
    'function count_user_answer_now(integer,boolean,boolean,boolean,timestamp with time zone) changed its body':
      'the same counters through count_user_answers, which locks the row first whatever the change',
    'function lock_answerable_question(integer,integer,boolean,boolean,integer) changed its body':
      'the same locks in the same order, in one statement, and the same ladder of rules; the collection is looked up only when the answer names one',
    'function count_answers_after() changed its body':
      'the same counters the group kept, written in one statement by count_user_answers, which locks the people in id order',
  },
  '2026-11-30-059-answer-statements-halved': {
    ...Object.fromEntries(
      ['likert', 'pick'].flatMap((kind) => {
        const signature = CAST_SIGNATURES[kind]!
        const moves = `function cast_${kind}_moves(${signature})`
        const why =
          'the same cast returning its one row as a record, not a set: called only by cast_likert, cast_pick and their groups, replaced here (the previous release never names it)'
        return [
          [`${moves} changed its result`, why],
          [`${moves} changed its parameters`, why],
          [`${moves} changed its body`, why],
          [
            `function cast_${kind}(${signature}) changed its body`,
            'the same cast and the same moves written at once; the cast called by assignment',
          ],
        ]
      }),
    ),
    ...Object.fromEntries(
      [
        'function cast_likert_group(integer[],integer[],boolean[],smallint[],boolean[],integer[],smallint[],boolean[],text[],text[],text[],text[],text[]) changed its body',
        'function cast_pick_group(integer[],integer[],boolean[],smallint[],boolean[],integer[],text[],text[],text[],text[],text[]) changed its body',
      ].map((violation) => [
        violation,
        "the same casts in the same order and the same rows returned; an answer without a privacy takes its voter's default read with the group's answers instead of by the cast",
      ]),
    ),
    ...Object.fromEntries(
      [
        'trigger question_votes.question_votes_liquid_blocks changed',
        'trigger question_choice_votes.question_choice_votes_liquid_blocks changed',
        'trigger question_votes.question_votes_unreleased_tag_votes changed',
      ].map((violation) => [
        violation,
        "a WHEN on a setting only the new casts set, around a first answer that reaches nobody else's rows (where the functions find nothing to do): the previous release never sets it, so its answers fire them as before",
      ]),
    ),
  },
  '2026-11-30-061-lone-first-answers-inserted-together': {
    ...Object.fromEntries(
      ['likert', 'pick'].flatMap((kind) => {
        const signature = CAST_SIGNATURES[kind]!
        const arrays = signature.replaceAll(/(integer|boolean|smallint|text)/g, '$1[]')
        return [
          [
            `function cast_${kind}_moves(${signature}) dropped`,
            'replaced by the same cast with a parameter more (whether its caller inserts a lone first answer itself): called only by cast_likert, cast_pick and their groups, replaced here (the previous release never names it)',
          ],
          [`function cast_${kind}(${signature}) changed its body`, 'the same cast, asking the cast to insert its answer as before'],
          [
            `function cast_${kind}_group(${arrays}) changed its body`,
            'the same casts in the same order, the same rows and outcomes returned; its lone first answers inserted in one statement, before anything reads them',
          ],
        ]
      }),
    ),
  },
}

interface Column {
  type: string
  notNull: boolean
  default: string | null
  generated: string
}
interface Routine {
  arguments: string
  result: string
  body: string
}
interface Catalog {
  tables: Set<string>
  views: Map<string, string>
  columns: Map<string, Column>
  routines: Map<string, Routine>
  triggers: Map<string, string>
  constraints: Map<string, string>
}

async function catalog<T>(db: Kysely<T>): Promise<Catalog> {
  const rows = async <R>(query: ReturnType<typeof sql<R>>) => (await query.execute(db)).rows
  const relations = await rows<{ name: string; kind: string; definition: string | null }>(sql`
    SELECT relname AS name, relkind AS kind, CASE WHEN relkind IN ('v', 'm') THEN pg_get_viewdef(oid) END AS definition
    FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'v', 'm')`)
  const columns = await rows<{ key: string; type: string; not_null: boolean; default: string | null; generated: string }>(sql`
    SELECT c.relname || '.' || a.attname AS key, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
      pg_get_expr(d.adbin, d.adrelid) AS default, a.attgenerated::text || a.attidentity::text AS generated
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped`)
  const routines = await rows<{ key: string; arguments: string; result: string; body: string }>(sql`
    SELECT p.oid::regprocedure::text AS key, pg_get_function_arguments(p.oid) AS arguments,
      coalesce(pg_get_function_result(p.oid), '') AS result, md5(regexp_replace(p.prosrc, '\\mpublic\\.', '', 'g')) AS body
    FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`)
  const triggers = await rows<{ key: string; definition: string }>(sql`
    SELECT c.relname || '.' || t.tgname AS key, pg_get_triggerdef(t.oid) AS definition
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal`)
  // Checks, uniques, keys and exclusions, and unique indexes outside a constraint: each can refuse a row. NOT NULL
  // (PostgreSQL 17's own constraints) is the column's nullability; constraint triggers are triggers.
  const constraints = await rows<{ key: string; definition: string }>(sql`
    SELECT c.relname || '.' || k.conname AS key, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
    WHERE c.relnamespace = 'public'::regnamespace AND k.contype IN ('c', 'u', 'p', 'f', 'x')
    UNION ALL
    SELECT c.relname || '.' || i.relname, pg_get_indexdef(i.oid)
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
    WHERE c.relnamespace = 'public'::regnamespace AND x.indisunique
      AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = x.indexrelid)`)
  return {
    tables: new Set(relations.filter((r) => r.kind === 'r' || r.kind === 'p').map((r) => r.name)),
    views: new Map(relations.filter((r) => r.kind === 'v' || r.kind === 'm').map((r) => [r.name, r.definition!])),
    columns: new Map(columns.map((c) => [c.key, { type: c.type, notNull: c.not_null, default: c.default, generated: c.generated }])),
    routines: new Map(routines.map((r) => [r.key, { arguments: r.arguments, result: r.result, body: r.body }])),
    triggers: new Map(triggers.map((t) => [t.key, t.definition])),
    constraints: new Map(constraints.map((k) => [k.key, k.definition])),
  }
}

/** What the previous release could see and the migration took away or changed, and what now refuses its writes. */
function violations(before: Catalog, after: Catalog): Map<string, string> {
  const found = new Map<string, string>()
  const push = (violation: string, detail = '') => found.set(violation, detail)
  for (const table of before.tables) if (!after.tables.has(table)) push(`table ${table} dropped`)
  for (const [view, definition] of before.views) {
    if (!after.views.has(view)) push(`view ${view} dropped`)
    else if (after.views.get(view) !== definition) push(`view ${view} changed its definition`)
  }
  const relation = (key: string) => key.slice(0, key.indexOf('.'))
  for (const [key, was] of before.columns) {
    const now = after.columns.get(key)
    if (!now) {
      if (after.tables.has(relation(key)) || after.views.has(relation(key))) push(`column ${key} dropped`)
      continue
    }
    if (now.type !== was.type) push(`column ${key} changed type from ${was.type} to ${now.type}`)
    if (now.notNull && !was.notNull) push(`column ${key} made NOT NULL`)
    if (was.default !== null && now.default === null && now.notNull) push(`column ${key} lost its default`)
    if (now.generated !== was.generated) push(`column ${key} changed generation from '${was.generated}' to '${now.generated}'`)
  }
  for (const [key, now] of after.columns) {
    if (before.columns.has(key) || !before.tables.has(relation(key))) continue
    if (now.notNull && now.default === null && now.generated === '') push(`column ${key} added NOT NULL without a default`)
  }
  for (const [key, was] of before.routines) {
    const now = after.routines.get(key)
    if (!now) push(`function ${key} dropped`)
    else {
      if (now.result !== was.result) push(`function ${key} changed its result`, `from ${was.result} to ${now.result}`)
      if (now.arguments !== was.arguments) push(`function ${key} changed its parameters`, `from (${was.arguments}) to (${now.arguments})`)
      if (now.body !== was.body) push(`function ${key} changed its body`)
    }
  }
  for (const [key, definition] of before.triggers) {
    if (!after.triggers.has(key)) push(`trigger ${key} dropped`)
    else if (after.triggers.get(key) !== definition) push(`trigger ${key} changed`)
  }
  for (const [key, definition] of after.constraints) {
    if (!before.tables.has(relation(key))) continue
    if (before.constraints.get(key) !== definition) push(`constraint ${key} added`, definition)
  }
  return found
}

test(`every migration from ${FIRST_CHECKED.slice(11, 14)} on keeps what the release before it used, but those allowed`, async () => {
  const names = Object.keys(migrations)
  const first = names.indexOf(FIRST_CHECKED)
  assert.ok(first > 0, `${FIRST_CHECKED} is a migration`)
  const database = await commandDatabase('blank')
  const unexplained: string[] = []
  const found = new Set<string>()
  try {
    await database.opened(async ({ db }) => {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
      const outcome = await migrator.migrateTo(names[first - 1])
      if (outcome.error) throw outcome.error
      let before = await catalog(db)
      for (const name of names.slice(first)) {
        const step = await migrator.migrateUp()
        if (step.error) throw step.error
        assert.deepEqual(
          step.results?.map((result) => result.migrationName),
          [name],
        )
        const after = await catalog(db)
        for (const [violation, detail] of violations(before, after)) {
          found.add(`${name}: ${violation}`)
          if (!ALLOWED[name]?.[violation]) unexplained.push(`${name}: ${violation}${detail ? ` (${detail})` : ''}`)
        }
        before = after
      }
    })
  } finally {
    await database.cleanup()
  }
  assert.deepEqual(
    unexplained,
    [],
    'a migration took away or changed what the previous release uses: expand now, contract in a later release ' +
      '(docs/operations.md, Upgrading a running deployment)',
  )
  const stale = Object.entries(ALLOWED).flatMap(([name, allowed]) =>
    Object.keys(allowed)
      .map((violation) => `${name}: ${violation}`)
      .filter((entry) => !found.has(entry)),
  )
  assert.deepEqual(stale, [], 'allowed, but no migration does it: remove it from ALLOWED')
})
