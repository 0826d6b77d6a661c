import { insertRows } from './bulk.ts'
import { isoDate, type AreaIds, type Person, type SeedContext } from './context.ts'
import { NATIONAL_PARTIES, PARTIES } from './data/names.ts'
import { TOPICS } from './data/topics.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import { politicianStatement } from './text.ts'

const POLITICIAN_SPEC = {
  id: 'int',
  external_id: 'text',
  name: 'text',
  sort_name: 'text',
  email: 'text',
  social1: 'text',
  social1_page: 'text',
  social3: 'text',
  social4: 'text',
  party: 'text',
  party_id: 'text',
  area_id: 'int',
  area_name: 'text',
  chamber: 'text',
  term: 'text',
  start_date: 'date',
  end_date: 'date',
  image: 'text',
  gender: 'text',
  country: 'text',
  type: 'text',
  fundraising_page: 'text',
  cv: 'text',
  statement: 'text',
  created_at: 'time',
  modified_at: 'time',
} as const

function handle(person: Person): string {
  return `${person.first}${person.last}`.replace(/[^A-Za-z0-9]/g, '')
}

/** One politician per given person (in order, ids from 1), each standing in the person's region. */
export async function seedPoliticians(
  ctx: SeedContext,
  areas: AreaIds,
  people: readonly (Person & { createdAt: number })[],
): Promise<void> {
  const rng = ctx.rng.stream('politicians')
  const rows = people.map((person, p) => {
    const id = p + 1
    const region = UK_REGIONS[person.region]
    const national = NATIONAL_PARTIES[region.code]
    const options = national ? [...PARTIES, national] : PARTIES
    const party = options[rng.weightedIndex(options.map((o) => o.weight))]
    const isMp = rng.chance(0.2)
    const tag = handle(person)
    const slug = `${person.first}-${person.last}`.toLowerCase().replace(/[^a-z0-9-]/g, '')
    const place = rng.pick(region.places)
    const priorities = rng.sample(TOPICS, 3).map((topic) => rng.pick(topic.policies))
    return {
      id,
      external_id: isMp ? `mp-${4000 + id}` : `ppc-${id}`,
      name: `${person.first} ${person.last}`,
      sort_name: `${person.last}, ${person.first}`,
      email: isMp ? `${slug}.mp@parliament.example.org` : `${slug}@${party.id}.example.org`,
      social1: rng.chance(0.8) ? `@${tag}` : '',
      social1_page: rng.chance(0.5) ? `https://social1.example.com/${tag}` : '',
      social3: rng.chance(0.4) ? `https://social3.example.com/in/${slug}` : '',
      social4: rng.chance(0.2) ? `https://social4.example.com/${tag}` : '',
      party: party.name,
      party_id: party.id,
      area_id: areas.regions[person.region],
      area_name: region.name,
      chamber: 'House of Commons',
      term: isMp ? '2024–2029' : '2029–2034',
      start_date: isMp ? '2024-07-04' : isoDate(person.createdAt),
      end_date: null,
      image: rng.chance(0.7) ? `https://images.example.org/politicians/${id}.jpg` : null,
      gender: person.gender === 1 ? 'male' : person.gender === 2 ? 'female' : '',
      country: 'United Kingdom',
      type: isMp ? 'mp' : 'candidate',
      fundraising_page: party.id !== 'independent' && rng.chance(0.3) ? `https://donate.example.org/${slug}` : '',
      cv: rng.chance(0.25) ? `https://www.example.org/cv/${slug}.pdf` : null,
      statement: politicianStatement(rng, place, region.name, priorities),
      created_at: person.createdAt,
      modified_at: person.createdAt,
    }
  })
  await insertRows(ctx.db, 'politicians', POLITICIAN_SPEC, rows)
  ctx.progress('politicians', rows.length, rows.length)
}
