import { Type } from 'typebox'
import { statisticsProperties } from '../../engines/statistics/statistics-fields.ts'

const figures = { ...statisticsProperties('direct'), ...statisticsProperties('liquid'), polarisation: Type.Number() }

/** What a question's stream sends: the figures of its detail, and of each choice. */
export const QuestionFigures = Type.Object({
  id: Type.Integer(),
  ...figures,
  choices: Type.Array(Type.Object({ id: Type.Integer(), text: Type.String(), store_number: Type.Integer(), ...figures })),
})

/** A collection's stream: its published questions' figures (all in `snapshot`, the changed ones in `figures`). */
export const CollectionFigures = Type.Object({
  id: Type.Integer({ description: 'the collection' }),
  questions: Type.Array(QuestionFigures),
})

export const eventStream = (description: string) => ({
  description,
  content: {
    'text/event-stream': { schema: Type.String({ description: 'Server-Sent Events: `id`, `event` and one line of JSON `data` each' }) },
  },
})
