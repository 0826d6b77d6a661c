import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SmsMessage {
  to: string
  text: string
  authorization: string | undefined
}

export interface SmsGateway {
  url: string
  messages: SmsMessage[]
  /** When set, the gateway answers this status instead of accepting messages. */
  failWith: number | null
  /** The six-digit code of the latest message to a number. */
  lastCode(to: string): string
  close(): Promise<void>
}

/** A real HTTP SMS gateway on a free local port, taking `POST {to, text}` as the service sends it. */
export async function startSmsGateway(): Promise<SmsGateway> {
  const messages: SmsMessage[] = []
  const gateway: SmsGateway = {
    url: '',
    messages,
    failWith: null,
    lastCode(to) {
      const message = [...messages].reverse().find((m) => m.to === to)
      const code = message?.text.match(/\b\d{6}\b/)?.[0]
      if (!code) throw new Error(`no code was texted to ${to}`)
      return code
    },
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (gateway.failWith !== null) {
        response.writeHead(gateway.failWith).end('gateway failure')
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; text: string }
      messages.push({ to: body.to, text: body.text, authorization: request.headers.authorization })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"queued"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  gateway.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`
  return gateway
}
