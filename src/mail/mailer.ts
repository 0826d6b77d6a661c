import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

export interface Mailer {
  send(message: MailMessage): Promise<void>
  close(): void
}

/**
 * E-mail through nodemailer: over SMTP when SMTP_URL is set; otherwise each message is written as an
 * .eml file under DATA_DIR/mail/ and logged, so a developer machine needs no mail server.
 */
export function createMailer(config: Config, log: FastifyBaseLogger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl)
    return {
      async send(message) {
        await transport.sendMail({ from: config.mailFrom, ...message })
        log.info({ to: message.to, subject: message.subject }, 'mail sent')
      },
      close: () => transport.close(),
    }
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const folder = path.join(config.dataDir, 'mail')
  return {
    async send(message) {
      const info = await transport.sendMail({ from: config.mailFrom, ...message })
      await mkdir(folder, { recursive: true })
      const file = path.join(
        folder,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.eml`,
      )
      await writeFile(file, info.message as Buffer)
      log.info({ to: message.to, subject: message.subject, file }, 'mail written (SMTP_URL is not set)')
    },
    close: () => transport.close(),
  }
}
