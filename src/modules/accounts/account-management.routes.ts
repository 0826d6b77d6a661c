import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ValidationFailed } from '../../core/errors.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import { accountsRepository } from './accounts.repository.ts'
import { ChangePasswordBody, PasswordBody, TokenInfo } from './accounts.schemas.ts'
import { confirmPassword, deleteAccount } from './accounts.service.ts'
import { hashPassword, passwordProblems } from './passwords.ts'
import { tokensRepository } from './tokens.repository.ts'
import { IdParams, NoContent } from '../../http/route-schemas.ts'

const errors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }
const Detail = Type.Object({ detail: Type.String() })

/** change-password, deactivate-account, delete-account and the signed-in user's tokens. */
export function accountManagementRoutes(app: App): void {
  app.post('/auth/change-password/', {
    schema: {
      summary: 'Change your password; signs out every other token',
      body: ChangePasswordBody,
      response: { 200: Detail, ...errors },
    },
    config: { access: 'signed-in', resource: { name: 'Change Password', description: 'Set a new password; other sign-ins end.' } },
    handler: async (request) => {
      const caller = signedIn(request)
      const user = await confirmPassword(app.db, caller.id, request.body.old_password, 'old_password')
      const problems = passwordProblems(request.body.new_password, { username: user.username, email: user.email })
      if (problems.length) throw ValidationFailed({ new_password: problems })
      await accountsRepository(app.db).update(caller.id, { password_hash: await hashPassword(request.body.new_password) })
      await tokensRepository(app.db).revokeAllOf(caller.id, caller.tokenId)
      return { detail: 'Password changed. Every other sign-in has ended.' }
    },
  })

  app.post('/auth/deactivate-account/', {
    schema: {
      summary: 'Deactivate your account until you sign in again',
      body: Type.Object({ password: Type.Optional(PasswordBody.properties.password) }),
      response: { 204: NoContent, ...errors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Deactivate Account', description: 'Hide your account and sign out everywhere; signing in again restores it.' },
    },
    handler: async (request, reply) => {
      const caller = signedIn(request)
      await confirmPassword(app.db, caller.id, request.body.password, 'password')
      await accountsRepository(app.db).update(caller.id, { is_active: false })
      await tokensRepository(app.db).revokeAllOf(caller.id)
      return reply.code(204).send(null)
    },
  })

  for (const method of ['POST', 'DELETE'] as const) {
    app.route({
      method,
      url: '/auth/delete-account/',
      schema: {
        summary: 'Delete your account: anonymised, answers kept',
        body: Type.Object({ password: Type.Optional(PasswordBody.properties.password) }),
        response: { 204: NoContent, ...errors },
      },
      config: {
        access: 'signed-in',
        resource: { name: 'Delete Account', description: 'Anonymise your account for good; your answers stay, anonymous.' },
      },
      handler: async (request, reply) => {
        const caller = signedIn(request)
        await confirmPassword(app.db, caller.id, request.body?.password, 'password')
        await deleteAccount(app.db, caller.id)
        return reply.code(204).send(null)
      },
    })
  }

  app.get('/auth/tokens/', {
    schema: { summary: 'Your active sign-in tokens (never the keys themselves)', response: { 200: Type.Array(TokenInfo), ...errors } },
    config: { access: 'signed-in', resource: { name: 'Token List', description: 'Where you are signed in.' } },
    handler: async (request) => {
      const rows = await tokensRepository(app.db).listActive(signedIn(request).id)
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        created_at: iso(row.created_at),
        last_used_at: isoOrNull(row.last_used_at),
        current: row.id === signedIn(request).tokenId,
      }))
    },
  })

  app.delete('/auth/tokens/:id/', {
    schema: { summary: 'Revoke one of your tokens', params: IdParams, response: { 204: NoContent, ...errors } },
    config: {
      access: 'owner',
      owner: async (request) => {
        const id = idParam(request)
        return id === null ? undefined : tokensRepository(app.db).ownerOf(id)
      },
    },
    handler: async (request, reply) => {
      await tokensRepository(app.db).revoke(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
