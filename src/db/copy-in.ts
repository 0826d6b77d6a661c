import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { CompiledQuery } from 'kysely'
import type pg from 'pg'
import type { PGlite } from '@electric-sql/pglite'
import { from as copyFrom } from 'pg-copy-streams'
import type { Db } from './types.ts'

/**
 * The rows of a `COPY … FROM STDIN` statement (text format, chunks of whole lines). It travels as the statement's
 * only parameter, so a bulk load runs through Kysely on the transaction's own connection, and each driver feeds it
 * the way its database takes it.
 */
export class CopyRows {
  constructor(readonly chunks: AsyncIterable<string>) {}
}

export const isCopy = (parameters: ReadonlyArray<unknown>): parameters is [CopyRows] =>
  parameters.length === 1 && parameters[0] instanceof CopyRows

/** Runs `statement` (a `COPY table (columns) FROM STDIN`) with the rows the chunks hold. */
export async function copyIn(db: Db, statement: string, chunks: AsyncIterable<string>): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(statement, [new CopyRows(chunks)]))
}

/** A PostgreSQL server: the COPY sub-protocol, streamed with back-pressure; a failing source cancels the COPY. */
export async function copyThroughPg(client: pg.PoolClient, statement: string, rows: CopyRows): Promise<pg.QueryResult> {
  const sink = client.query(copyFrom(statement))
  await pipeline(Readable.from(rows.chunks), sink)
  return { command: 'COPY', rowCount: sink.rowCount, rows: [], oid: 0, fields: [] }
}

/** Bytes handed to PGlite per COPY: its COPY reads a whole blob, so a long stream becomes several statements. */
const PGLITE_COPY_BYTES = 8 << 20

/** PGlite: COPY reads its `/dev/blob` device, filled from the chunks a few megabytes at a time. */
export async function copyThroughPglite(client: PGlite, statement: string, rows: CopyRows): Promise<void> {
  const fromBlob = statement.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'")
  let parts: string[] = []
  let size = 0
  const flush = async () => {
    if (size === 0) return
    await client.query(fromBlob, [], { blob: new Blob(parts) })
    parts = []
    size = 0
  }
  for await (const chunk of rows.chunks) {
    parts.push(chunk)
    size += chunk.length
    if (size >= PGLITE_COPY_BYTES) await flush()
  }
  await flush()
}
