import fs from 'node:fs'
import http from 'node:http'

/**
 * A read scenario's limit: a bare node:http server answering the service's exact bytes and content type from
 * memory, to whatever path is asked. Run as its own process (`node bench/load/limit-server.ts <body file>
 * <content type>`); prints its port on stdout once listening.
 */
const [bodyFile, contentType] = process.argv.slice(2)
const body = fs.readFileSync(bodyFile)
const server = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': contentType, 'content-length': body.length })
  response.end(body)
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address && typeof address === 'object') console.log(address.port)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
