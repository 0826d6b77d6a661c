import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/** One politician of an import file: its cells by column, and the area its code named. */
export interface ImportedPolitician {
  values: Record<string, string | null>
  areaId: number | null
}

/** A column of the politicians table an import writes, and how its cells read (`area`: the area resolved from the code). */
export interface ImportedColumn {
  name: string
  kind: 'text' | 'nullable' | 'date' | 'area'
}

/** The SQL of `civic-survey import-politicians` (politicians.import.ts), run inside its one transaction. */
export function politiciansImportRepository(trx: Db) {
  return {
    /** The areas having any of these codes, in id order. */
    async areasWithCodes(codes: string[]): Promise<{ id: number; code: string; m_type: string; name: string }[]> {
      const { rows } = await sql<{ id: number; code: string; m_type: string; name: string }>`
        SELECT id, code, m_type, name FROM areas WHERE code = ANY(${codes}::text[]) ORDER BY id`.execute(trx)
      return rows
    },

    /** Which of these external ids are already a politician's. */
    async existingExternalIds(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set()
      const { rows } = await sql<{ external_id: string }>`
        SELECT DISTINCT external_id FROM politicians WHERE external_id = ANY(${ids}::text[])`.execute(trx)
      return new Set(rows.map((row) => row.external_id))
    },

    /** New politicians: one statement. */
    async insert(rows: readonly ImportedPolitician[], columns: readonly ImportedColumn[]): Promise<void> {
      const list = sql.raw(columns.map((c) => c.name).join(', '))
      const select = sql.raw(columns.map(cast).join(', '))
      await sql`INSERT INTO politicians (${list})
        SELECT ${select} FROM unnest(${sql.join(columnParams(rows, columns))}) AS u(${list})`.execute(trx)
    },

    /** The politicians these rows name by external_id, their given columns overwritten: one statement. */
    async update(rows: readonly ImportedPolitician[], columns: readonly ImportedColumn[]): Promise<void> {
      const externalId = columns.find((c) => c.name === 'external_id') ?? { name: 'external_id', kind: 'nullable' as const }
      const others = columns.filter((c) => c.name !== 'external_id')
      const all = [externalId, ...others]
      const set = sql.raw([...others.map((c) => `${c.name} = ${cast(c)}`), 'modified_at = now()'].join(', '))
      await sql`UPDATE politicians SET ${set}
        FROM unnest(${sql.join(columnParams(rows, all))}) AS u(${sql.raw(all.map((c) => c.name).join(', '))})
        WHERE politicians.external_id = u.external_id`.execute(trx)
    },
  }
}

function columnParams(rows: readonly ImportedPolitician[], columns: readonly ImportedColumn[]) {
  return columns.map((column) => {
    if (column.kind === 'area') return sql`${rows.map((r) => r.areaId)}::int4[]`
    // A column the line leaves out is empty text, or null where the table allows it.
    const missing = column.kind === 'text' ? '' : null
    return sql`${rows.map((r) => r.values[column.name] ?? missing)}::text[]`
  })
}

function cast(column: ImportedColumn): string {
  return column.kind === 'date' ? `u.${column.name}::date` : `u.${column.name}`
}
