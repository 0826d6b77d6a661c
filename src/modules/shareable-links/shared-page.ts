import type { Static } from 'typebox'
import { escapeHtml } from '../../http/browsable/html.ts'
import { LEVEL_NAMES } from '../../engines/statistics/likert.ts'
import type { Question } from '../questions/questions.schemas.ts'
import type { SharedResults } from './shareable-links.schemas.ts'
import { sharedPictureSvg } from './shared-picture.ts'

type Figures = Record<string, unknown>
const count = (figures: Figures, name: string) => Number(figures[name] ?? 0)

/**
 * One question's figures as a picture, then as a table: each answer with its direct and liquid counts; a likert
 * question's census-weighted pictures after them, when there are any (by age band, then by region).
 */
function questionSection(question: Question, weighted: readonly string[] = []): string {
  const rows =
    question.subtype === 'mcq'
      ? question.choices.map((choice) => [choice.text, count(choice, 'direct_vote_count'), count(choice, 'liquid_vote_count')] as const)
      : LEVEL_NAMES.map(
          (level) => [level.replace(/_/g, ' '), count(question, `direct_${level}`), count(question, `liquid_${level}`)] as const,
        )
  const body = rows
    .map(([label, direct, liquid]) => `<tr><th scope="row">${escapeHtml(String(label))}</th><td>${direct}</td><td>${liquid}</td></tr>`)
    .join('')
  return `<section><h2>${escapeHtml(question.question)}</h2>
<p>${count(question, 'direct_vote_count')} answers; ${count(question, 'liquid_vote_count')} counting delegated votes.</p>
<figure>${sharedPictureSvg(question)}</figure>
<table><thead><tr><th>answer</th><th>direct</th><th>with delegations</th></tr></thead><tbody>${body}</tbody></table>
${weighted.length > 0 ? `<h3>Weighted to the census</h3>${weighted.map((svg) => `<figure class="weighted">${svg}</figure>`).join('\n')}` : ''}</section>`
}

/** The page a shared link opens in a browser: the results, nothing about who answered what. */
export function sharedPage(results: Static<typeof SharedResults>, weighted: ReadonlyMap<number, readonly string[]> = new Map()): string {
  const title = results.collection?.name ?? results.question?.question ?? 'Results'
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} – Civic Survey results</title></head><body><main>
<h1>${escapeHtml(title)}</h1>
${results.questions.map((question) => questionSection(question, weighted.get(question.id))).join('\n')}
<p><small>Shared results, open until ${escapeHtml(results.expires_at)}. Results are under the ODbL 1.0.</small></p>
</main></body></html>`
}
