/**
 * A question's answers as a picture on the shared page, inline SVG drawn from the published figures the page already
 * holds (no statement of its own, so a collection's page costs no query per question): the share of each answer as
 * given directly and counting delegated votes, and for a likert question each direct share's 95 % margin (simple
 * random sampling, as the weighted results compute it unweighted). Every number drawn is written beside its mark.
 */
import { escapeMarkup as escapeXml } from '../../core/markup.ts'
import { LEVEL_NAMES } from '../../engines/statistics/likert.ts'
import { LEVEL_KEYS, unweightedRatingEstimates } from '../../engines/statistics/weighting.ts'
import type { Question } from '../questions/questions.schemas.ts'

// Near a phone's width, so that its text is drawn at about the page's own size there.
const WIDTH = 360
const MARGIN = 16
const TOP = 56
const CHART = 160
const DIRECT = '#0072B2'
const LIQUID = '#E69F00'

const round1 = (value: number) => Math.round(value * 10) / 10
const count = (figures: Record<string, unknown>, name: string) => Number(figures[name] ?? 0)

/** One answer drawn: its label, its direct and delegated counts, and the direct share's margin (0..1) if known. */
export interface PictureBar {
  label: string
  direct: number
  liquid: number
  margin: number | null
}

/** The bars of a question: its five levels (likert) or its choices (multiple choice), from its published figures. */
export function pictureBars(question: Question): PictureBar[] {
  if (question.subtype === 'mcq')
    return question.choices.map((choice) => ({
      label: choice.text,
      direct: count(choice, 'direct_vote_count'),
      liquid: count(choice, 'liquid_vote_count'),
      margin: null,
    }))
  const levels = LEVEL_NAMES.map((level) => count(question, `direct_${level}`))
  const ratings = levels.flatMap((n, i) => Array.from({ length: n }, () => i + 1))
  const estimates = ratings.length > 1 ? unweightedRatingEstimates(ratings) : null
  return LEVEL_NAMES.map((level, i) => ({
    label: `${i + 1} ${level}`,
    direct: levels[i],
    liquid: count(question, `liquid_${level}`),
    margin: estimates?.shares[LEVEL_KEYS[i]].margin ?? null,
  }))
}

/** Shares in percent of a list of counts (all 0 when nothing was counted). */
function percents(counts: number[]): number[] {
  const total = counts.reduce((sum, n) => sum + n, 0)
  return counts.map((n) => (total > 0 ? (100 * n) / total : 0))
}

export function sharedPictureSvg(question: Question): string {
  const bars = pictureBars(question)
  const direct = percents(bars.map((bar) => bar.direct))
  const liquid = percents(bars.map((bar) => bar.liquid))
  const slot = (WIDTH - 2 * MARGIN) / Math.max(1, bars.length)
  const barWidth = slot * 0.4
  const y = (percent: number) => round1(TOP + CHART - (Math.min(100, Math.max(0, percent)) / 100) * CHART)
  const mark = (i: number, kind: 'direct' | 'liquid', percent: number, margin: number | null) => {
    const x = MARGIN + i * slot + slot * 0.1 + (kind === 'liquid' ? barWidth : 0)
    const top = y(percent)
    const centre = round1(x + barWidth / 2)
    const whisker =
      margin === null ? '' : `<line x1="${centre}" x2="${centre}" y1="${y(percent + margin)}" y2="${y(percent - margin)}" stroke="#111"/>`
    return (
      `<g class="bar" data-answer="${i}" data-kind="${kind}" data-percent="${round1(percent)}"><rect x="${round1(x)}" y="${top}" ` +
      `width="${round1(barWidth)}" height="${round1(TOP + CHART - top)}" fill="${kind === 'direct' ? DIRECT : LIQUID}"/>${whisker}` +
      `<text x="${centre}" y="${round1(top - 4)}" text-anchor="middle" font-size="9">${round1(percent)}%</text></g>`
    )
  }
  const marks = bars.flatMap((bar, i) => [
    mark(i, 'direct', direct[i], bar.margin === null ? null : bar.margin * 100),
    mark(i, 'liquid', liquid[i], null),
    `<text x="${round1(MARGIN + i * slot + slot / 2)}" y="${TOP + CHART + 16}" text-anchor="middle" font-size="11">` +
      `${escapeXml(bar.label.length > 12 ? `${bar.label.slice(0, 11)}…` : bar.label)}</text>`,
  ])
  const height = TOP + CHART + 32
  const label = `Answers to: ${question.question}`
  return [
    `<svg class="picture" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" ` +
      `font-size="12" role="img" aria-label="${escapeXml(label)}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN}" y="18"><tspan fill="${DIRECT}">■</tspan> direct answers ` +
      `<tspan fill="${LIQUID}">■</tspan> counting delegated votes</text>`,
    bars.some((bar) => bar.margin !== null)
      ? `<text x="${MARGIN}" y="34" fill="#555">Lines: the 95 % margin of each direct share</text>`
      : '',
    `<line x1="${MARGIN}" x2="${WIDTH - MARGIN}" y1="${TOP + CHART}" y2="${TOP + CHART}" stroke="#999"/>`,
    ...marks,
    '</svg>',
  ].join('')
}
