/**
 * A question's result as an SVG picture (`/api/question_weighted_demographics/<id>/age/?format=svg`): the share of
 * each rating as answered and as weighted to the census, each with its 95 % margin, then the weighted mean of each
 * age band; and by region (`.../<id>/area/?format=svg`): the weighted mean of each region published. Drawn only from
 * the JSON answer of the same URL; every number drawn is written beside its mark.
 */
import { escapeMarkup as escapeXml } from '../../core/markup.ts'
import type { Static } from 'typebox'
import type { AgeBreakdown, AreaBreakdown } from './weighting.schemas.ts'

const WIDTH = 520
const MARGIN = 24
const HEADER = 64
const CHART = 200
const ROW = 22
const LEVELS = ['1', '2', '3', '4', '5'] as const
const ANSWERED = '#9ca3af'
const WEIGHTED = '#0072B2'

const round1 = (value: number) => Math.round(value * 10) / 10
const shown = (value: number | null, unit = '%') => (value === null ? '–' : `${round1(value)}${unit}`)

/** One row of means on the 1..5 scale: its label, the mean as answered and weighted (the weighted one drawn when known). */
interface MeanRow {
  label: string
  attribute: string
  average_vote: number | null
  weighted_average_vote: number | null
}

/** Rows of means from `top` down, each a dot on the 1..5 scale with its number at the right. */
function meanRows(rows: MeanRow[], top: number, labelWidth = 120): string[] {
  const scaleX = (mean: number) => round1(MARGIN + labelWidth + ((mean - 1) / 4) * (WIDTH - 2 * MARGIN - labelWidth - 60))
  return rows.map((row, i) => {
    const rowY = top + i * ROW
    const mean = row.weighted_average_vote ?? row.average_vote
    const mark =
      mean === null
        ? ''
        : `<circle cx="${scaleX(mean)}" cy="${rowY - 4}" r="5" fill="${row.weighted_average_vote === null ? ANSWERED : WEIGHTED}"/>`
    return (
      `<g class="band" ${row.attribute}><text x="${MARGIN}" y="${rowY}">${escapeXml(row.label)}</text>` +
      `<line x1="${scaleX(1)}" x2="${scaleX(5)}" y1="${rowY - 4}" y2="${rowY - 4}" stroke="#ddd"/>${mark}` +
      `<text class="value" x="${WIDTH - MARGIN}" y="${rowY}" text-anchor="end">${shown(mean, '')}</text></g>`
    )
  })
}

/**
 * A picture's first elements: its size (a view box, so it scales to where it is shown), background and title. The
 * title's id is the picture's own, so that several pictures can share a page.
 */
function opening(title: string, height: number, id: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" ` +
      `font-family="sans-serif" font-size="12" role="img" aria-labelledby="${id}">`,
    `<title id="${id}">${title}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN}" y="22" font-size="15" font-weight="bold">${title}</text>`,
  ]
}

export function weightedResultSvg(answer: Static<typeof AgeBreakdown>): string {
  const { overall } = answer
  const slot = (WIDTH - 2 * MARGIN) / LEVELS.length
  const barWidth = slot / 3
  const y = (percent: number) => round1(HEADER + CHART - (Math.min(100, Math.max(0, percent)) / 100) * CHART)
  const bar = (level: string, kind: 'answered' | 'weighted', percent: number | null, margin: number | null, x: number) => {
    if (percent === null) return ''
    const colour = kind === 'answered' ? ANSWERED : WEIGHTED
    const top = y(percent)
    const whisker =
      margin === null
        ? ''
        : `<line x1="${round1(x + barWidth / 2)}" x2="${round1(x + barWidth / 2)}" y1="${y(percent + margin)}" y2="${y(percent - margin)}" stroke="#111"/>`
    return (
      `<g class="bar" data-level="${level}" data-kind="${kind}"><rect x="${round1(x)}" y="${top}" width="${round1(barWidth)}" ` +
      `height="${round1(HEADER + CHART - top)}" fill="${colour}"/>${whisker}` +
      `<text class="value" x="${round1(x + barWidth / 2)}" y="${round1(top - 4)}" text-anchor="middle" font-size="10">${shown(percent)}</text></g>`
    )
  }
  const bars = LEVELS.flatMap((level, i) => {
    const share = overall.shares[level]
    const left = MARGIN + i * slot + slot / 6
    return [
      bar(level, 'answered', share.percentage, share.margin, left),
      bar(level, 'weighted', share.weighted_percentage, share.weighted_margin, left + barWidth),
      `<text x="${round1(MARGIN + i * slot + slot / 2)}" y="${HEADER + CHART + 16}" text-anchor="middle">${level}</text>`,
    ]
  })

  // The weighted mean of each age band on the 1..5 scale.
  const bandsTop = HEADER + CHART + 56
  const bands = meanRows(
    answer.data.map((point) => ({ label: point.age_range, attribute: `data-age="${escapeXml(point.age_range)}"`, ...point })),
    bandsTop,
  )
  const height = bandsTop + Math.max(1, answer.data.length) * ROW + MARGIN
  const method = overall.method ? `${overall.method}, effective n ${round1(overall.effective_sample_size)}` : 'no census weights'
  const title = `Ratings of question ${answer.qid}`
  return [
    ...opening(title, height, `weighted-${answer.qid}-age`),
    `<text x="${MARGIN}" y="40"><tspan fill="${ANSWERED}">■</tspan> as answered (n = ${overall.sample_size}, mean ${shown(overall.average_vote, '')}) ` +
      `<tspan fill="${WEIGHTED}">■</tspan> weighted to the census (mean ${shown(overall.weighted_average_vote, '')})</text>`,
    `<text x="${MARGIN}" y="56" fill="#555">Bars: share of each rating, lines: its 95 % margin; ${escapeXml(method)}</text>`,
    `<line x1="${MARGIN}" x2="${WIDTH - MARGIN}" y1="${HEADER + CHART}" y2="${HEADER + CHART}" stroke="#999"/>`,
    ...bars,
    `<text x="${MARGIN}" y="${bandsTop - 20}" font-weight="bold">Mean rating by age band (1 to 5), weighted</text>`,
    ...bands,
    '</svg>',
    '',
  ].join('\n')
}

/** Room for a region's name and its respondents: about 30 characters at the picture's type size. */
const AREA_LABEL_WIDTH = 200
const NAME_LENGTH = 20
const shortName = (name: string) => (name.length > NAME_LENGTH ? `${name.slice(0, NAME_LENGTH - 1)}…` : name)

/** The weighted mean of each region published, and of the whole question, each row with its name and respondents. */
export function weightedAreaSvg(answer: Static<typeof AreaBreakdown>, names: ReadonlyMap<number, string>): string {
  const { overall } = answer
  // Three lines of legend (a phone shows the picture at 390 px): one more than the other pictures.
  const rowsTop = HEADER + 28
  const rows = meanRows(
    [
      { label: `all (n = ${overall.sample_size})`, attribute: 'data-region="all"', ...overall },
      ...answer.data.map((point) => ({
        label: `${shortName(names.get(point.region_id) ?? `region ${point.region_id}`)} (n = ${point.sample_size})`,
        attribute: `data-region="${point.region_id}"`,
        average_vote: point.average_vote,
        weighted_average_vote: point.weighted_average_vote,
      })),
    ],
    rowsTop,
    AREA_LABEL_WIDTH,
  )
  const height = rowsTop + (answer.data.length + 1) * ROW + MARGIN
  const title = `Ratings of question ${answer.qid} by region`
  return [
    ...opening(title, height, `weighted-${answer.qid}-area`),
    `<text x="${MARGIN}" y="40">Mean rating (1 to 5): <tspan fill="${WEIGHTED}">●</tspan> weighted by age band to the region's census,</text>`,
    `<text x="${MARGIN}" y="56"><tspan fill="${ANSWERED}">●</tspan> as answered where no weight is known</text>`,
    `<text x="${MARGIN}" y="72" fill="#555">Regions under the published minimum of respondents are not shown</text>`,
    ...rows,
    '</svg>',
    '',
  ].join('\n')
}
