/** The service's seeded generator (mulberry32), so every run tests the same data sets. */
export { seededRandom } from '../../src/core/seeded-random.ts'
