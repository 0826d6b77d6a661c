import http from 'node:http'

/**
 * The fan-out limit: a bare node:http server holding event streams open and writing one event to all of them on
 * the parent's word, as fast as the machine can. Run `fork`ed; answers { port } once listening, { open } with how
 * many streams it holds when asked { count: true }, and { sentAt } after writing { broadcast: text } to every stream.
 */
const streams = new Set<http.ServerResponse>()
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  response.write('retry: 2000\n\n')
  response.write(`id: 0\nevent: figures\ndata: {"direct_vote_count":-1}\n\n`)
  streams.add(response)
  request.on('close', () => streams.delete(response))
})
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }))
process.on('message', (message: { broadcast?: string; count?: boolean }) => {
  if (message.count) process.send!({ open: streams.size })
  if (message.broadcast !== undefined) {
    // Encoded once and written as the same bytes to every stream, as the service does.
    const bytes = Buffer.from(message.broadcast)
    const sentAt = Date.now()
    for (const response of streams) response.write(bytes)
    process.send!({ sentAt })
  }
})
process.on('SIGTERM', () => {
  for (const response of streams) response.destroy()
  server.close(() => process.exit(0))
})
