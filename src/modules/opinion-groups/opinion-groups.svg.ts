/**
 * The opinion map as an SVG picture (`?format=svg`): the map's squares shaded by how many people sit in each, each
 * shown group as a disc at its centre sized by its share, the caller's own place, and beneath it a legend that says
 * in words what each group stands out on and what unites them. Drawn only from what the JSON publishes.
 */
import { escapeMarkup as escapeXml } from '../../core/markup.ts'
import type { OpinionGroups } from './opinion-groups.schemas.ts'

const PLOT = 440
const MARGIN = 20
const WIDTH = PLOT + 2 * MARGIN
const HEADER = 56
const LINE = 20
/** Colour-blind-safe (Okabe–Ito), one per group label in turn. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000']
/** Characters of a question's text in the legend before it is cut short. */
const TEXT_LENGTH = 60

const shorten = (text: string) => (text.length > TEXT_LENGTH ? `${text.slice(0, TEXT_LENGTH - 1)}…` : text)
const round = (value: number) => Math.round(value * 10) / 10
const percent = (share: number) => `${Math.round(share * 100)}%`

/** Pol.is names groups by letter; labels past Z keep their number. */
export const groupName = (label: number) => (label >= 0 && label < 26 ? String.fromCharCode(65 + label) : String(label))

export function opinionGroupsSvg(groups: OpinionGroups): string {
  const { extent, squares } = groups.map
  // Model coordinates −extent..extent onto the plot, y upwards.
  const px = (x: number) => round(MARGIN + ((x + extent) / (2 * extent)) * PLOT)
  const py = (y: number) => round(HEADER + PLOT - ((y + extent) / (2 * extent)) * PLOT)
  const side = round(PLOT / squares)
  const densest = Math.max(1, ...groups.map.cells.map((c) => c.count))
  const colour = (label: number) => PALETTE[label % PALETTE.length]

  const cells = groups.map.cells.map(
    (c) =>
      `<rect class="square" x="${px(c.x)}" y="${round(py(c.y) - side)}" width="${side}" height="${side}" ` +
      `fill="#4b5563" fill-opacity="${round((0.1 + (0.5 * c.count) / densest) * 100) / 100}"><title>${c.count} people</title></rect>`,
  )
  const discs = groups.groups.map((g) => {
    const r = round(8 + 28 * Math.sqrt(g.share))
    const name = `Group ${groupName(g.label)}`
    return (
      `<g class="group"><circle cx="${px(g.x)}" cy="${py(g.y)}" r="${r}" fill="${colour(g.label)}" fill-opacity="0.75" stroke="#fff">` +
      `<title>${name}: ${g.size} people</title></circle>` +
      `<text x="${px(g.x)}" y="${round(py(g.y) + 5)}" text-anchor="middle" font-weight="bold" fill="#fff">${groupName(g.label)}</text></g>`
    )
  })
  const me = groups.me
    ? [
        `<g class="me"><circle cx="${px(Math.max(-extent, Math.min(extent, groups.me.x)))}" cy="${py(Math.max(-extent, Math.min(extent, groups.me.y)))}" ` +
          `r="5" fill="none" stroke="#111" stroke-width="2"><title>You</title></circle></g>`,
      ]
    : []

  // Two lines a group: who they are, then what sets them apart; lines stay within the picture's width.
  const legend: string[] = groups.groups.flatMap((g) => {
    const top = g.representative[0]
    const weighted = g.weighted_share === null ? '' : `, ${percent(g.weighted_share)} of adults weighted`
    return [
      `<tspan fill="${colour(g.label)}">■</tspan> Group ${groupName(g.label)}: ${g.size} people (${percent(g.share)}${weighted})`,
      top
        ? `<tspan dx="14">${top.repful_for === 'agree' ? 'agrees more than others with' : 'disagrees more than others with'}</tspan>`
        : '',
      ...(top ? [`<tspan dx="14">“${escapeXml(shorten(top.text))}”</tspan>`] : []),
    ].filter((line) => line !== '')
  })
  const united = groups.consensus[0]
  if (united) legend.push('What every group agrees on most:', `<tspan dx="14">“${escapeXml(shorten(united.text))}”</tspan>`)
  if (groups.groups.length === 0) legend.push('No group is large enough to be shown yet.')
  const legendTop = HEADER + PLOT + 28
  const height = legendTop + legend.length * LINE + MARGIN

  const title = `Opinion groups of ${groups.scope} ${groups.scope_id}`
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" ` +
      `font-family="sans-serif" font-size="13" role="img" aria-labelledby="title">`,
    `<title id="title">${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN}" y="24" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${MARGIN}" y="44" fill="#555">${groups.participants} people, ${groups.clustered} grouped; computed ${escapeXml(groups.computed_at)}</text>`,
    `<rect x="${MARGIN}" y="${HEADER}" width="${PLOT}" height="${PLOT}" fill="none" stroke="#ccc"/>`,
    ...cells,
    ...discs,
    ...me,
    ...legend.map((line, i) => `<text class="legend" x="${MARGIN}" y="${legendTop + i * LINE}">${line}</text>`),
    '</svg>',
    '',
  ].join('\n')
}
