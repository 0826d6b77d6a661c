/** A GeoJSON position: longitude, latitude (any further values, such as altitude, are ignored). */
export type Position = readonly number[]

export interface Centroid {
  longitude: number
  latitude: number
}

/**
 * Signed area (twice over: the shoelace sum) and the first moments of one ring, on the plane of longitude
 * and latitude. The ring may repeat its first position at the end (GeoJSON does) or not: the closing edge
 * of a closed ring has length zero and adds nothing. Positions are taken relative to the ring's first one,
 * which keeps the sums exact enough for small areas far from (0, 0).
 */
function ringMoments(ring: readonly Position[]): { area2: number; mx: number; my: number } {
  const [x0, y0] = ring[0]
  let area2 = 0
  let mx = 0
  let my = 0
  for (let i = 0; i < ring.length; i++) {
    const [ax, ay] = ring[i]
    const [bx, by] = ring[(i + 1) % ring.length]
    const x1 = ax - x0
    const y1 = ay - y0
    const x2 = bx - x0
    const y2 = by - y0
    const cross = x1 * y2 - x2 * y1
    area2 += cross
    mx += (x1 + x2) * cross
    my += (y1 + y2) * cross
  }
  // Moments about the ring's first position, moved back to the origin: Σ(x·A) = Σ(x'·A) + x0·A.
  return { area2, mx: mx / 3 + x0 * area2, my: my / 3 + y0 * area2 }
}

/**
 * The area-weighted centroid of polygons (each an outer ring then its holes), as for a planar shape: every
 * ring's centroid weighted by its area, holes subtracting theirs whatever their winding. Degenerate shapes
 * (no area) fall back to the mean of their positions. Longitude and latitude are treated as plane
 * coordinates, which is what a map marker needs for areas the size of a country or smaller; shapes that
 * cross the antimeridian are not handled.
 */
export function polygonsCentroid(polygons: readonly (readonly (readonly Position[])[])[]): Centroid {
  let area = 0
  let mx = 0
  let my = 0
  let count = 0
  let sx = 0
  let sy = 0
  for (const rings of polygons) {
    rings.forEach((ring, r) => {
      const m = ringMoments(ring)
      // The outer ring counts positively and holes negatively, whichever way each is wound.
      const sign = (r === 0 ? 1 : -1) * Math.sign(m.area2)
      area += (sign * m.area2) / 2
      mx += (sign * m.mx) / 2
      my += (sign * m.my) / 2
      for (const [x, y] of ring) {
        sx += x
        sy += y
        count++
      }
    })
  }
  if (Math.abs(area) < 1e-12) return { longitude: sx / count, latitude: sy / count }
  return { longitude: mx / area, latitude: my / area }
}
