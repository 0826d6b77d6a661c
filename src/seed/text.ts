import type { Random } from './random.ts'

/** Wording for comments, politicians' statements, groups and collections. */

const REASONS_FOR: readonly string[] = [
  'it would make life fairer for people on low incomes',
  'the current system clearly is not working',
  'we cannot afford to keep putting this off',
  'it has worked well in other countries',
  'it would save money in the long run',
  'my own family would have benefited from this',
  'it gives local people more say',
  'the evidence for it is strong',
]

const REASONS_AGAINST: readonly string[] = [
  'it would cost far too much',
  'it treats the symptoms, not the cause',
  'I do not trust any government to deliver it properly',
  'it would hit small businesses hardest',
  'there are better ways to spend the money',
  'it sounds good but would have unintended consequences',
  'it takes decisions away from local communities',
  'nobody has explained how it would be paid for',
]

const SOURCES: readonly string[] = [
  'House of Commons Library',
  'Institute for Fiscal Studies',
  'Office for Budget Responsibility',
  "King's Fund",
  'Resolution Foundation',
  'Office for National Statistics',
  'Institute for Government',
  'local council',
]

export function commentText(rng: Random, subtype: 'info' | 'reason' | 'suggestion', subject: string): string {
  switch (subtype) {
    case 'reason':
      return rng.chance(0.55) ? `I agree because ${rng.pick(REASONS_FOR)}.` : `I disagree: ${rng.pick(REASONS_AGAINST)}.`
    case 'info': {
      const source = rng.pick(SOURCES)
      return rng.pick([
        `The ${source} has published a useful briefing on ${subject}. Worth reading before you vote.`,
        `There was a public consultation on this last year; the responses are worth a look.`,
        `For context, the ${source} looked at the costs of this. The figures are more mixed than the headlines suggest.`,
        `A similar scheme was piloted a few years ago. The ${source} evaluated it.`,
      ])
    }
    case 'suggestion':
      return rng.pick([
        'The question would be clearer if it said how this would be paid for.',
        `Could we have a follow-up question about ${subject}?`,
        'It would help to split this into two separate questions.',
        'Please add a link to the original proposal.',
        'Maybe ask this again in a year to see if opinions change.',
      ])
  }
}

export function replyText(rng: Random): string {
  return rng.pick([
    'Good point, I had not thought of that.',
    `I see it differently: ${rng.pick(REASONS_AGAINST)}.`,
    `But surely ${rng.pick(REASONS_FOR)}?`,
    'Do you have a source for that?',
    'Agreed.',
    'Thanks for sharing the link.',
    'This is exactly the problem where I live.',
  ])
}

export function politicianStatement(rng: Random, place: string, region: string, priorities: readonly string[]): string {
  const opening = rng.pick([
    `I grew up in ${place} and have lived in ${region} all my life.`,
    `I have worked in ${place} for over ten years, as a nurse, a school governor and a volunteer.`,
    `I moved to ${place} twenty years ago and raised my family here.`,
    `Before standing for Parliament I ran a small business in ${place}.`,
  ])
  return [
    opening,
    `My priorities are to ${priorities[0]}, to ${priorities[1]} and to ${priorities[2]}.`,
    rng.pick([
      `I will always put ${place} first.`,
      'I hold a surgery every month: come and tell me what matters to you.',
      'Politics should be about listening. Vote on the questions here and I will read your answers.',
    ]),
  ].join('\n\n')
}

export function groupName(rng: Random, place: string, region: string): string {
  return rng.pick([
    `Friends of ${place} Library`,
    `${region} Housing Forum`,
    `Climate Action ${place}`,
    `Young Voters ${region}`,
    `${place} Chamber of Commerce`,
    `Parents for Better Schools ${place}`,
    `${region} Rail Users' Association`,
    `Patients' Voice ${region}`,
    `${place} Tenants' Union`,
    `${place} Cycling Campaign`,
  ])
}

export function groupDescription(rng: Random, name: string): string {
  return rng.pick([
    `${name} brings local people together to discuss the issues that matter and to make our voice heard.`,
    `A friendly, non-partisan group. We meet once a month and run surveys on local questions.`,
    `Members vote on the group's questions; the results go to our councillors and MPs.`,
  ])
}

export function collectionTexts(
  rng: Random,
  subject: string,
  region: string,
  slug: string,
): { name: string; desc: string; endText: string } {
  const name = rng.pick([
    `${subject.charAt(0).toUpperCase()}${subject.slice(1)}: where do you stand?`,
    `Big questions for ${region}`,
    `Ten questions on ${subject}`,
    `The 2026 budget survey`,
    `What next for ${subject}?`,
    `Your views on ${subject}`,
  ])
  const desc = rng.pick([
    `A short survey on ${subject}. ` + `Read the background in [our briefing](https://www.example.org/briefings/${slug}) before you start.`,
    'Answer as many questions as you like; you can skip any of them. ' +
      'See [how we use the results](https://www.example.org/about/results).',
    `We will share the results with local representatives in ${region}. ` +
      'Questions suggested by [our members](https://www.example.org/members).',
  ])
  const endText = rng.pick([
    'Thanks for taking part! Share this survey to see how your friends compare.',
    'Thank you. Your answers have been recorded; check back later for the results.',
    'All done. Why not suggest a question for the next survey?',
  ])
  return { name, desc, endText }
}

export function breakContent(rng: Random, subject: string, part: number): { title: string; text: string } {
  return {
    title: `Part ${part}: ${subject}`,
    text: rng.pick([
      `The next questions are about ${subject}. Take your time; you can skip any question.`,
      `Halfway there! The following questions look at ${subject}.`,
      `Some background on **${subject}** before the next questions: [read more](https://www.example.org/background).`,
    ]),
  }
}
