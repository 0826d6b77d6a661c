/**
 * Checks the schema against Citus's rules for the distributed plan of docs/scaling.md.
 *
 *   node --import tsx scripts/citus-check.ts [--url postgres://…/db] [--json]
 *
 * Without --url it makes a scratch database on the local server (CITUS_CHECK_SERVER, else DATABASE_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres), applies the migrations, reads the catalog and drops it. With --url
 * it reads the catalog of that database as it is. From PLAN below (each table distributed by a column, a reference
 * table, or local on the coordinator) it reports, per table, what holds and what the move would have to change:
 *
 * - a distributed table's distribution column exists, is NOT NULL, and has its group's type;
 * - every primary key, unique constraint and unique index of a distributed table includes the distribution column;
 * - a foreign key between distributed tables is within one co-location group and pairs the two distribution
 *   columns; with the distribution column in the key, ON DELETE SET NULL / SET DEFAULT would null it;
 * - distributed → reference is allowed; reference → distributed is not; distributed ↔ local is not;
 *   local ↔ reference is (the coordinator in the metadata), without CASCADE from a reference table to a local one;
 * - triggers on distributed and reference tables (Citus refuses them by default).
 *
 * Exit status 1 only when the plan names a table that does not exist or a table is not in the plan (schema drift);
 * the known violations are the changes the move needs, and exit 0.
 */
import { parseArgs } from 'node:util'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from '../src/db/migrate.ts'

type Role = { role: 'distributed'; column: string; group: string } | { role: 'reference' } | { role: 'local' }

const byQuestion = (column = 'question_id'): Role => ({ role: 'distributed', column, group: 'question' })
const reference: Role = { role: 'reference' }
const local: Role = { role: 'local' }

/**
 * The plan. Distributed by question, co-located with `questions`: the answers, their history, the figures (kept on
 * the question's rows and its choices', tags', links'), comments and what hangs off them. Reference (copied to every
 * node): small tables read with everything and written rarely. Local on the coordinator: accounts, sign-in,
 * a person's own lists, notifications and bookkeeping.
 */
export const PLAN: Record<string, Role> = {
  questions: byQuestion('id'),
  question_choices: byQuestion(),
  question_votes: byQuestion(),
  question_vote_history: byQuestion(),
  question_choice_votes: byQuestion(),
  question_choice_vote_history: byQuestion(),
  question_tags: byQuestion(),
  question_tag_votes: byQuestion(),
  question_links: byQuestion(),
  question_link_votes: byQuestion(),
  question_question_connections: byQuestion('from_question_id'),
  question_question_connection_votes: byQuestion('from_question_id'),
  question_delegations: byQuestion(),
  question_tag_changes: byQuestion(),
  liquid_blocks: byQuestion(),
  group_question_connections: byQuestion(),
  comments: byQuestion(),
  comment_votes: byQuestion(),
  comment_reports: byQuestion(),
  vote_comments: byQuestion(),
  unreleased_answers: byQuestion(),
  unreleased_comment_votes: byQuestion(),
  question_figure_deltas: byQuestion(),
  liquid_weight_deltas: byQuestion(),
  liquid_block_deltas: byQuestion(),
  tag_vote_deltas: { role: 'distributed', column: 'tag_id', group: 'tag' },
  tag_unreleased_deltas: { role: 'distributed', column: 'tag_id', group: 'tag' },

  areas: reference,
  census_data: reference,
  politicians: reference,
  tags: reference,
  tag_delegations: reference,
  groups: reference,
  question_collections: reference,
  question_collection_items: reference,
  question_collection_tags: reference,
  disclosure_settings: reference,

  users: local,
  user_answer_counts: local,
  user_geos: local,
  user_compares: local,
  auth_tokens: local,
  app_keys: local,
  one_time_codes: local,
  social_accounts: local,
  social_login_states: local,
  payment_subscriptions: local,
  payment_webhook_events: local,
  service_secrets: local,
  following_tags: local,
  following_users: local,
  friendships: local,
  group_memberships: local,
  group_invites: local,
  group_join_requests: local,
  notifications: local,
  notification_settings: local,
  push_devices: local,
  analytics_events: local,
  team_messages: local,
  private_answer_reads: local,
  shareable_links: local,
  opinion_group_runs: local,
  opinion_group_places: local,
  // One row the walks of next_question compare with: a counter on the coordinator, bumped by triggers today.
  question_set_version: local,
  kysely_migration: local,
  kysely_migration_lock: local,
}

interface Column {
  table: string
  name: string
  type: string
  notNull: boolean
}
interface Key {
  table: string
  name: string
  kind: 'PRIMARY KEY' | 'UNIQUE' | 'UNIQUE INDEX' | 'EXCLUDE'
  columns: string[]
  /** an index on expressions or with a WHERE clause, as pg_get_indexdef shows it */
  definition: string
}
interface ForeignKey {
  table: string
  name: string
  columns: string[]
  target: string
  targetColumns: string[]
  onDelete: string
}
interface Trigger {
  table: string
  name: string
}
export interface Catalog {
  tables: string[]
  columns: Column[]
  keys: Key[]
  foreignKeys: ForeignKey[]
  triggers: Trigger[]
}

const ON_DELETE: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' }

/** The public schema's tables, columns, keys, unique indexes, foreign keys and user triggers. */
export async function readCatalog(client: pg.Client): Promise<Catalog> {
  const tables = await client.query<{ table: string }>(`
    SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`)
  const columns = await client.query<Column>(`
    SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS "notNull"
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`)
  // Constraints, and unique indexes that back none; an expression's column is reported by its definition.
  const keys = await client.query<Key>(`
    SELECT c.relname AS table, k.conname AS name,
      CASE k.contype WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' THEN 'UNIQUE' ELSE 'EXCLUDE' END AS kind,
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(attnum, i)
            JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.i) AS columns,
      pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND k.contype IN ('p', 'u', 'x')
    UNION ALL
    SELECT c.relname, ic.relname, 'UNIQUE INDEX',
      ARRAY(SELECT a.attname::text FROM unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY u(attnum, n)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.attnum ORDER BY u.n),
      pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND i.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
    ORDER BY 1, 3, 2`)
  const foreignKeys = await client.query<ForeignKey>(`
    SELECT c.relname AS table, k.conname AS name, t.relname AS target, k.confdeltype AS "onDelete",
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(attnum, i)
            JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.i) AS columns,
      ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(attnum, i)
            JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.i) AS "targetColumns"
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class t ON t.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND k.contype = 'f' ORDER BY 1, 2`)
  const triggers = await client.query<Trigger>(`
    SELECT c.relname AS table, g.tgname AS name FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND NOT g.tgisinternal ORDER BY 1, 2`)
  return {
    tables: tables.rows.map((r) => r.table),
    columns: columns.rows,
    keys: keys.rows,
    foreignKeys: foreignKeys.rows.map((f) => ({ ...f, onDelete: ON_DELETE[f.onDelete] ?? f.onDelete })),
    triggers: triggers.rows,
  }
}

export interface Finding {
  ok: boolean
  text: string
}
export interface TableReport {
  table: string
  role: string
  findings: Finding[]
}
export interface Report {
  tables: TableReport[]
  /** named by the plan, absent from the schema */
  missing: string[]
  /** in the schema, absent from the plan */
  unplanned: string[]
  changes: number
}

const list = (columns: string[]) => `(${columns.join(', ')})`
const describe = (role: Role) =>
  role.role === 'distributed' ? `distributed by ${role.column} (co-located with the ${role.group} group)` : role.role

/** Applies Citus's rules for `plan` to the catalog. */
export function check(catalog: Catalog, plan: Record<string, Role>): Report {
  const exists = new Set(catalog.tables)
  const column = (table: string, name: string) => catalog.columns.find((c) => c.table === table && c.name === name)
  const roleOf = (table: string): Role | undefined => plan[table]
  const groupType = new Map<string, string>()
  for (const [table, role] of Object.entries(plan)) {
    const found = role.role === 'distributed' ? column(table, role.column) : undefined
    if (role.role === 'distributed' && found && !groupType.has(role.group)) groupType.set(role.group, found.type)
  }

  const tables: TableReport[] = []
  for (const table of catalog.tables.filter((t) => plan[t])) {
    const role = plan[table]
    const findings: Finding[] = []
    const holds = (text: string) => findings.push({ ok: true, text })
    const change = (text: string) => findings.push({ ok: false, text })

    if (role.role === 'distributed') {
      const dist = column(table, role.column)
      if (!dist) {
        // The parent it can be copied from: a distributed table of the group this one references.
        const parent = catalog.foreignKeys.find((f) => f.table === table && roleOf(f.target)?.role === 'distributed')
        const from = parent ? ` (copied from ${parent.target} through ${parent.columns.join(', ')})` : ''
        change(`add the distribution column ${role.column} NOT NULL${from}`)
      } else {
        const expected = groupType.get(role.group)
        if (!dist.notNull) change(`make ${role.column} NOT NULL (a row needs a shard)`)
        else holds(`distribution column ${role.column} ${dist.type} NOT NULL`)
        if (expected && dist.type !== expected)
          change(`${role.column} is ${dist.type}; the ${role.group} group is ${expected}: the same type is needed to co-locate`)
      }
      for (const key of catalog.keys.filter((k) => k.table === table)) {
        const label = `${key.kind} ${key.name} ${list(key.columns)}${key.kind === 'UNIQUE INDEX' && /\(.*\(|WHERE/.test(key.definition) ? ` [${key.definition.replace(/^.* USING \w+ /, '')}]` : ''}`
        if (key.columns.includes(role.column)) holds(`${label} includes ${role.column}`)
        else {
          // Unless a column of the key already fixes the row's question (it references a row of the group), the
          // wider key is unique per question only.
          const fixed =
            key.kind === 'PRIMARY KEY' ||
            catalog.foreignKeys.some(
              (f) => f.table === table && f.columns.some((c) => key.columns.includes(c)) && roleOf(f.target)?.role === 'distributed',
            )
          const weaker = fixed
            ? ''
            : `; that is unique per ${role.column} only: keep ${list(key.columns)} unique in a table on the coordinator`
          change(`${label} must include ${role.column}: ${list([role.column, ...key.columns])}${weaker}`)
        }
      }
    }
    // Citus refuses triggers on distributed and reference tables unless citus.enable_unsafe_triggers is on, and then
    // a trigger runs on the node holding the shard (coordinator tables keep theirs).
    const triggers = role.role === 'local' ? [] : catalog.triggers.filter((t) => t.table === table).map((t) => t.name)
    if (triggers.length > 0)
      change(
        `trigger${triggers.length > 1 ? 's' : ''} ${triggers.join(', ')}: Citus refuses triggers on ${role.role} tables by default; when allowed, a trigger runs on the shard's node and may touch only that shard (a NOTIFY there reaches no listener): do their work (notices, counters) in the service after commit, as answers do`,
      )

    for (const fk of catalog.foreignKeys.filter((f) => f.table === table)) {
      const target = roleOf(fk.target)
      const label = `FOREIGN KEY ${fk.name} ${list(fk.columns)} → ${fk.target} ${list(fk.targetColumns)}`
      if (!target) {
        change(`${label}: ${fk.target} is not in the plan`)
        continue
      }
      const from = role.role
      const to = target.role
      if (from === 'distributed' && to === 'distributed' && role.role === 'distributed' && target.role === 'distributed') {
        const pairs = fk.columns.map((c, i) => [c, fk.targetColumns[i]] as const)
        const paired = pairs.some(([c, t]) => c === role.column && t === target.column)
        if (role.group !== target.group) change(`${label}: ${table} and ${fk.target} are in different co-location groups; drop it`)
        else if (!paired && fk.targetColumns.includes(target.column))
          change(
            `${label}: it points at another ${target.group} row, which may be on another shard; drop it and keep the rule in the service`,
          )
        else if (!paired)
          change(
            `${label}: must pair the distribution columns: ${list([role.column, ...fk.columns.filter((c) => c !== role.column)])} → ${fk.target} ${list([target.column, ...fk.targetColumns.filter((c) => c !== target.column)])}`,
          )
        else holds(`${label}: co-located on ${role.column}`)
        if (role.group === target.group && (fk.onDelete === 'SET NULL' || fk.onDelete === 'SET DEFAULT'))
          change(
            `${label}: ON DELETE ${fk.onDelete} would set ${role.column} too; name the columns to set, ${fk.onDelete} ${list(fk.columns.filter((c) => c !== role.column))}`,
          )
      } else if (from === 'distributed' && to === 'reference') holds(`${label}: distributed → reference is allowed`)
      else if (from === 'distributed' && to === 'local')
        change(
          `${label}: a distributed table cannot reference ${fk.target}, which stays on the coordinator; drop it and keep the rule in the service`,
        )
      else if (from === 'reference' && to === 'distributed')
        change(`${label}: a reference table cannot reference a distributed one; drop it and keep the rule in the service`)
      else if (from === 'local' && to === 'distributed')
        change(`${label}: a coordinator table cannot reference a distributed one; drop it and keep the rule in the service`)
      else if (from === 'reference' && to === 'local' && fk.onDelete === 'CASCADE')
        change(
          `${label}: ON DELETE CASCADE from a reference table to a coordinator table is not supported; delete in the service, or RESTRICT`,
        )
      else holds(`${label}: ${from} → ${to} is allowed${from !== to ? ' (with the coordinator in the metadata)' : ''}`)
    }
    tables.push({ table, role: describe(role), findings })
  }
  const missing = Object.keys(plan).filter((t) => !exists.has(t))
  const unplanned = catalog.tables.filter((t) => !plan[t])
  const changes = tables.reduce((sum, t) => sum + t.findings.filter((f) => !f.ok).length, 0)
  return { tables, missing, unplanned, changes }
}

export function formatReport(report: Report): string {
  const lines: string[] = []
  const order = (role: string) => (role.startsWith('distributed') ? 0 : role === 'reference' ? 1 : 2)
  const sorted = [...report.tables].sort((a, b) => order(a.role) - order(b.role) || a.table.localeCompare(b.table))
  for (const t of sorted) {
    const changes = t.findings.filter((f) => !f.ok).length
    lines.push(`${t.table}: ${t.role}${changes > 0 ? `; ${changes} change${changes > 1 ? 's' : ''}` : ''}`)
    for (const f of t.findings) lines.push(`  ${f.ok ? 'holds ' : 'change'}  ${f.text}`)
  }
  const count = (role: string) => report.tables.filter((t) => order(t.role) === order(role)).length
  lines.push('')
  lines.push(
    `${report.tables.length} tables: ${count('distributed')} distributed, ${count('reference')} reference, ${count('local')} on the coordinator; ${report.changes} changes the move needs`,
  )
  lines.push(`unplanned (in the schema, not in the plan): ${report.unplanned.length ? report.unplanned.join(', ') : 'none'}`)
  lines.push(`missing (in the plan, not in the schema): ${report.missing.length ? report.missing.join(', ') : 'none'}`)
  return lines.join('\n')
}

/** A scratch database on the server, migrated; `drop` removes it. */
async function scratchDatabase(server: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `civic_citus_check_${process.pid}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(server)
  url.pathname = `/${name}`
  const drop = async () => {
    const client = new pg.Client({ connectionString: server })
    await client.connect()
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    } finally {
      await client.end()
    }
  }
  try {
    const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }) })
    try {
      await migrateToLatest(db)
    } finally {
      await db.destroy()
    }
  } catch (error) {
    await drop()
    throw error
  }
  return { url: url.toString(), drop }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { url: { type: 'string' }, json: { type: 'boolean', default: false } } })
  const server = process.env.CITUS_CHECK_SERVER || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
  const scratch = values.url ? null : await scratchDatabase(server)
  let report: Report
  try {
    const client = new pg.Client({ connectionString: values.url ?? scratch!.url })
    await client.connect()
    try {
      report = check(await readCatalog(client), PLAN)
    } finally {
      await client.end()
    }
  } finally {
    await scratch?.drop()
  }
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report))
  if (report.missing.length > 0 || report.unplanned.length > 0) {
    console.error('the plan in scripts/citus-check.ts no longer matches the schema: place every unplanned table, remove every missing one')
    return 1
  }
  return 0
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main()
