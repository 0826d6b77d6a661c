import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { fieldError, NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import { pushDevicesRepository, toDevice, type DeviceRow } from './push-devices.repository.ts'
import { Device, DeviceParams, deviceBodies, KINDS, registrationIdValid, type DeviceBody, type DeviceKind } from './push-devices.schemas.ts'
import { NoContent } from '../../http/route-schemas.ts'
import { signedIn } from '../../http/permissions.ts'

/** Field errors, or a detail when the body is not JSON. */
const BadRequest = Type.Union([FieldErrorsBody, ErrorBody])
const errors = { 400: BadRequest, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }
const PageQuery = Type.Object({ page: Type.Optional(Type.String()), page_size: Type.Optional(Type.String()) })

/** /api-push/device/gcm/ and /api-push/device/apns/. */
export function pushDeviceRoutes(app: App): void {
  for (const kind of KINDS) deviceRoutes(app, kind)
}

/**
 * The devices the phone apps register for notifications, as django-push-notifications serves them: the
 * instance URLs name a device by its registration id, with or without the trailing slash (Android deletes
 * without one, iOS with one).
 */
function deviceRoutes(app: App, kind: DeviceKind): void {
  const label = kind === 'gcm' ? 'GCM' : 'APNS'
  const base = `/api-push/device/${kind}/`
  const bodies = deviceBodies(kind)
  const repository = () => pushDevicesRepository(app.db)

  const registrationId = (value: string) => {
    if (!registrationIdValid(kind, value))
      throw fieldError('registration_id', kind === 'apns' ? 'Registration ID (device token) is invalid.' : 'Enter a valid registration id.')
    return value
  }
  const named = async (request: FastifyRequest): Promise<DeviceRow> => {
    const device = await repository().find(kind, (request.params as { registration_id: string }).registration_id)
    if (!device) throw NotFound()
    return device
  }

  listRoute(app, base, {
    summary: `Your ${label} devices`,
    querystring: PageQuery,
    item: Device,
    config: {
      access: 'signed-in',
      resource: { name: `${label} Device List`, description: `Your phones registered for ${label} push notifications.` },
    },
    rows: (request, list) => repository().page(signedIn(request).id, kind, list),
    items: (rows) => rows.map(toDevice),
  })

  app.post(base, {
    schema: {
      summary: `Register a ${label} device: 201 when new, 200 when the registration id was known and now belongs to you`,
      body: bodies.create,
      response: { 200: Device, 201: Device, ...errors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const body = request.body as DeviceBody
      const row = await repository().register(signedIn(request).id, kind, {
        registration_id: registrationId(body.registration_id!),
        ...(body.name !== undefined ? { name: body.name ?? '' } : {}),
        ...(body.active !== undefined ? { active: body.active } : {}),
      })
      return reply.code(row.created ? 201 : 200).send(toDevice(row))
    },
  })

  const owner = async (request: FastifyRequest) =>
    (await repository().find(kind, (request.params as { registration_id: string }).registration_id))?.user_id

  /** PUT replaces (registration_id required), PATCH changes only the fields sent. */
  const update = async (request: FastifyRequest) => {
    const device = await named(request)
    const body = request.body as DeviceBody
    const values: { registration_id?: string; name?: string; active?: boolean } = {}
    if (body.registration_id !== undefined && body.registration_id !== device.registration_id) {
      values.registration_id = registrationId(body.registration_id)
      if (await repository().find(kind, values.registration_id))
        throw fieldError('registration_id', 'A device with this registration id already exists.')
    }
    if (body.name !== undefined) values.name = body.name ?? ''
    if (body.active !== undefined) values.active = body.active
    return toDevice(await repository().update(device.id, values))
  }

  for (const url of [`${base}:registration_id`, `${base}:registration_id/`]) {
    app.get(url, {
      schema: { summary: `One of your ${label} devices`, params: DeviceParams, response: { 200: Device, ...errors } },
      config: {
        access: 'owner',
        owner,
        resource: { name: `${label} Device Instance`, description: `A phone registered for ${label} push notifications.` },
      },
      handler: async (request) => toDevice(await named(request)),
    })
    app.put(url, {
      schema: { summary: `Replace a ${label} device`, params: DeviceParams, body: bodies.create, response: { 200: Device, ...errors } },
      config: { access: 'owner', owner },
      handler: update,
    })
    app.patch(url, {
      schema: { summary: `Change a ${label} device`, params: DeviceParams, body: bodies.update, response: { 200: Device, ...errors } },
      config: { access: 'owner', owner },
      handler: update,
    })
    app.delete(url, {
      schema: { summary: `Unregister a ${label} device`, params: DeviceParams, response: { 204: NoContent, ...errors } },
      config: { access: 'owner', owner },
      handler: async (request, reply) => {
        if (!(await repository().remove((await named(request)).id))) throw NotFound()
        return reply.code(204).send(null)
      },
    })
  }
}
