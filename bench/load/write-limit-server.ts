import fs from 'node:fs'
import http from 'node:http'
import pg from 'pg'

/**
 * The write scenarios' limit: a bare node:http + pg server doing only the irreducible durable work. A vote is one
 * row inserted in its own transaction into bench_vote_limit (shaped like question_votes, so the bench database's
 * real tables stay untouched); the next question is read by one index probe past the caller's last answer.
 * Callers are known from an in-memory token map. Run as its own process (`node bench/load/write-limit-server.ts
 * <database url> <tokens file> <pool size>`); prints its port on stdout once listening.
 */
const [databaseUrl, tokensFile, poolSize] = process.argv.slice(2)
const users = new Map<string, number>(Object.entries(JSON.parse(fs.readFileSync(tokensFile, 'utf8')) as Record<string, number>))
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) })

const send = (response: http.ServerResponse, status: number, body: unknown) => {
  const bytes = Buffer.from(JSON.stringify(body))
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length })
  response.end(bytes)
}

async function answer(request: http.IncomingMessage, response: http.ServerResponse, user: number) {
  if (request.method === 'GET') {
    // The survey surge's walk: the first question of the collection, in its order, the caller has not answered.
    const collection = new URL(request.url ?? '/', 'http://limit').searchParams.get('in_collections__parent')
    const { rows } = collection
      ? await pool.query(
          `SELECT i.question_id AS id FROM question_collection_items i WHERE i.parent_id = $2 AND i.type = 'Q'
             AND NOT EXISTS (SELECT 1 FROM bench_vote_limit v WHERE v.user_id = $1 AND v.question_id = i.question_id)
           ORDER BY i."order", i.id LIMIT 1`,
          [user, Number(collection)],
        )
      : await pool.query(
          `SELECT id FROM questions WHERE publish AND id > (SELECT coalesce(max(question_id), 0) FROM bench_vote_limit WHERE user_id = $1)
       ORDER BY id LIMIT 1`,
          [user],
        )
    return send(response, 200, { results: rows.map((row) => ({ id: row.id, choices: [] })) })
  }
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const vote = JSON.parse(Buffer.concat(chunks).toString()) as { object_id: number; value: number }
  const { rows } = await pool.query(
    `INSERT INTO bench_vote_limit (question_id, user_id, value) VALUES ($1, $2, $3)
     ON CONFLICT (user_id, question_id) DO UPDATE SET value = excluded.value, modified_at = now() RETURNING id`,
    [vote.object_id, user, vote.value],
  )
  send(response, 201, { id: rows[0].id, object_id: vote.object_id, value: vote.value })
}

const server = http.createServer((request, response) => {
  const user = users.get((request.headers.authorization ?? '').replace(/^Token /, ''))
  if (user === undefined) return send(response, 401, { detail: 'Invalid token.' })
  answer(request, response, user).catch((error: Error) => send(response, 500, { detail: error.message }))
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address && typeof address === 'object') console.log(address.port)
})
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))))
