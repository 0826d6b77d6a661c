import { Type, type Static, type TProperties } from 'typebox'
import { Nullable, Timestamp } from '../../http/schemas.ts'

/** The kinds of event the clients report, each at /api/analytics_event/<kind>/. */
export const EVENT_KINDS = ['url_share', 'chatbot_join', 'chatbot_message', 'clicks'] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export const URL_MAX_LENGTH = 2000

const Text = (maxLength: number, description: string) => Type.Optional(Nullable(Type.String({ maxLength, description })))
const WebUrl = (description: string) => Type.String({ maxLength: URL_MAX_LENGTH, description: `${description}; an absolute http(s) URL` })

/** Where and how the client was when the event happened, as the web app sends them with votes and shares. */
const clientFields = {
  analytics_interface: Text(100, "the part of the app, e.g. 'collection'"),
  analytics_browser: Text(200, 'the browser (navigator.appCodeName)'),
  analytics_os: Text(500, 'the system (navigator.appVersion)'),
  analytics_parent_url: Type.Optional(Nullable(WebUrl('the page the event happened on'))),
  analytics_location: Text(100, "'latitude,longitude' or 'latitude,longitude,accuracy in metres', or empty"),
}

const platform = Type.String({ minLength: 1, maxLength: 50, description: "the chat platform, e.g. 'messenger'" })
const chatId = Text(200, "the platform's id of the conversation")

/** What a client sends for each kind; unknown fields are dropped, as on every write. */
export const EVENT_BODIES = {
  url_share: Type.Object({ url: WebUrl('the URL shared'), ...clientFields }),
  chatbot_join: Type.Object({ platform, chat_id: chatId }),
  chatbot_message: Type.Object({
    platform,
    chat_id: chatId,
    text_length: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, maximum: 100_000, description: 'characters in the message (its text is not stored)' })),
    ),
  }),
  clicks: Type.Object({
    url: WebUrl('the URL the click led to'),
    element: Text(200, "what was clicked, e.g. 'share-button'"),
    ...clientFields,
  }),
} as const satisfies Record<EventKind, ReturnType<typeof Type.Object>>

/** The stored payload: every field of the kind, null when not sent (or sent empty). */
function Payload(properties: TProperties) {
  return Type.Object(
    Object.fromEntries(
      Object.entries(properties).map(([name]) => [
        name,
        name === 'text_length' ? Nullable(Type.Integer()) : name === 'url' || name === 'platform' ? Type.String() : Nullable(Type.String()),
      ]),
    ),
  )
}

/** The event as stored: who reported it (null when anonymous) and what. */
export function StoredEvent(kind: EventKind) {
  return Type.Object({
    id: Type.Integer(),
    kind: Type.Literal(kind),
    user: Nullable(Type.Integer({ description: 'the signed-in reporter, or null' })),
    payload: Payload(EVENT_BODIES[kind].properties),
    created_at: Timestamp,
  })
}

export type EventPayload = Record<string, string | number | null>

export const DailyCount = Type.Object({
  date: Type.String({ format: 'date', description: 'a day (UTC)' }),
  count: Type.Integer({ description: 'events of the kind that day' }),
})
export type DailyCount = Static<typeof DailyCount>

export const DailyCountsQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'first day (UTC), included' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'last day (UTC), included' })),
})
export type DailyCountsQuery = Static<typeof DailyCountsQuery>
