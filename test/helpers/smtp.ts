import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** A message as a person reads it: headers decoded, body decoded from its transfer encoding. */
export interface ReceivedMail {
  to: string[]
  from: string
  subject: string
  text: string
  raw: string
}

export interface Inbox {
  /** SMTP_URL for the service under test. */
  url: string
  received: ReceivedMail[]
  /** The oldest message to `to` whose text matches, taken out of the inbox; waits for it to arrive. */
  take(to: string, match?: RegExp, timeoutMs?: number): Promise<ReceivedMail>
  /** Messages to `to` still in the inbox. */
  waiting(to: string): ReceivedMail[]
  close(): Promise<void>
}

/** A real SMTP server on 127.0.0.1, any free port, without TLS or authentication. */
export async function startSmtpServer(): Promise<Inbox> {
  const received: ReceivedMail[] = []
  const listeners = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const message = parseMail(Buffer.concat(chunks).toString('utf8'))
        received.push({ ...message, to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()) })
        for (const listener of listeners) listener()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo

  const find = (to: string, match?: RegExp) =>
    received.findIndex((mail) => mail.to.includes(to.toLowerCase()) && (!match || match.test(mail.text)))
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    take(to, match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const index = find(to, match)
          if (index < 0) return
          listeners.delete(check)
          clearTimeout(timer)
          resolve(received.splice(index, 1)[0])
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`no mail to ${to}${match ? ` matching ${match}` : ''} within ${timeoutMs} ms`))
        }, timeoutMs)
        listeners.add(check)
        check()
      })
    },
    waiting: (to) => received.filter((mail) => mail.to.includes(to.toLowerCase())),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** Headers and text of a raw RFC 822 message; a multipart message gives its first text/plain part. */
export function parseMail(raw: string): Omit<ReceivedMail, 'to'> {
  const { headers, body } = split(raw)
  return { from: headers.get('from') ?? '', subject: headers.get('subject') ?? '', text: textOf(headers, body), raw }
}

function split(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/)
  const head = end < 0 ? raw : raw.slice(0, end)
  const body = end < 0 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '')
  const headers = new Map<string, string>()
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()))
  }
  return { headers, body }
}

function textOf(headers: Map<string, string>, body: string): string {
  const type = headers.get('content-type') ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (/^multipart\//i.test(type) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break
      const inner = split(part.replace(/^\r?\n/, ''))
      const text = textOf(inner.headers, inner.body)
      if (/^text\/plain/i.test(inner.headers.get('content-type') ?? 'text/plain')) return text
    }
    return ''
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body)
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  return body
}

function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '')
  const bytes: number[] = []
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3)
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(joined[i], 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=); spaces between two of them go. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    )
}
