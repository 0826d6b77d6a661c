import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { appKeysRepository } from '../modules/app-keys/app-keys.repository.ts'
import { tokensRepository } from '../modules/accounts/tokens.repository.ts'
import { UsageError, type Command } from './command.ts'
import { withMigratedDatabase } from './database.ts'

export const appKey: Command = {
  name: 'app-key',
  usage: [
    ['app-key create --name NAME', 'create an application key; prints the key alone'],
    ['app-key list', 'list application keys (never the keys themselves)'],
    ['app-key revoke --id ID', 'revoke an application key'],
  ],
  async run(config, args) {
    const [action, ...rest] = args
    const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, id: { type: 'string' } } })
    await withMigratedDatabase(config, async ({ db }) => {
      const keys = appKeysRepository(db)
      if (action === 'create') {
        if (!values.name) throw new UsageError('app-key create needs --name NAME')
        const { key } = await keys.create(values.name)
        process.stdout.write(`${key}\n`)
      } else if (action === 'list') {
        for (const key of await keys.list()) {
          const state = key.revoked_at ? `revoked ${key.revoked_at.toISOString()}` : 'active'
          const used = key.last_used_at ? key.last_used_at.toISOString() : 'never used'
          console.log(`${key.id}\t${key.name}\t${key.key_prefix}…\t${state}\t${used}`)
        }
      } else if (action === 'revoke') {
        if (!values.id || !/^\d+$/.test(values.id)) throw new UsageError('app-key revoke needs --id ID')
        if (!(await keys.revoke(Number(values.id)))) throw new UsageError(`no active application key with id ${values.id}`)
        console.error(`revoked application key ${values.id}`)
      } else {
        throw new UsageError('app-key needs create, list or revoke')
      }
    })
  },
}

export const user: Command = {
  name: 'user',
  usage: [
    ['user staff --username NAME [--off]', 'grant (or withdraw) staff rights'],
    ['user sign-out --username NAME', 'revoke every sign-in token of a user'],
  ],
  async run(config, args) {
    const [action, ...rest] = args
    const { values } = parseArgs({ args: rest, options: { username: { type: 'string' }, off: { type: 'boolean', default: false } } })
    const username = values.username
    if (!username) throw new UsageError(`user ${action ?? ''} needs --username NAME`.replace('  ', ' '))
    await withMigratedDatabase(config, async ({ db }) => {
      const found = await db
        .selectFrom('users')
        .select(['id', 'username'])
        .where(sql`lower(username)`, '=', username.toLowerCase())
        .executeTakeFirst()
      if (!found) throw new UsageError(`no user named "${username}"`)
      if (action === 'staff') {
        await db.updateTable('users').set({ is_staff: !values.off }).where('id', '=', found.id).execute()
        console.error(`${found.username} (${found.id}) is ${values.off ? 'no longer' : 'now'} staff`)
      } else if (action === 'sign-out') {
        await tokensRepository(db).revokeAllOf(found.id)
        console.error(`every token of ${found.username} (${found.id}) is revoked`)
      } else {
        throw new UsageError('user needs staff or sign-out')
      }
    })
  },
}

export const sendDigests: Command = {
  name: 'send-digests',
  usage: [
    ['send-digests', 'mail each user whose digest is due their unmailed notifications', '(for cron: running it again sends nothing new)'],
  ],
  async run(config) {
    const { sendDigests } = await import('../engines/notifications/digests.ts')
    const { createMailer } = await import('../mail/mailer.ts')
    const { pino } = await import('pino')
    const mailer = createMailer(config, pino({ level: config.logLevel }, process.stderr))
    try {
      await withMigratedDatabase(config, async ({ db }) => {
        const base = config.publicUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`
        const report = await sendDigests(db, mailer, { base })
        console.error(`${report.digests} digests sent, listing ${report.notifications} notifications`)
      })
    } finally {
      mailer.close()
    }
  },
}
