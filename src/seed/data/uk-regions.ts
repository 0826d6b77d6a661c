/**
 * The twelve regions and nations of the United Kingdom: the nine regions of England plus Scotland,
 * Wales and Northern Ireland, with their Office for National Statistics (ONS) geography codes
 * (E12 = region of England, S92/W92/N92 = country of the UK). Centroids are approximate
 * (longitude, latitude in degrees) and populations are rounded usual-resident figures of the
 * 2021/2022 censuses, used to place seeded users and to scale the synthetic census counts.
 */

export interface UkRegion {
  code: string
  name: string
  typeDescription: string
  longitude: number
  latitude: number
  population: number
  /** A few towns and cities, for addresses and question wording. */
  places: readonly string[]
}

export const UK_REGIONS: readonly UkRegion[] = [
  {
    code: 'E12000001', name: 'North East', typeDescription: 'Region of England',
    longitude: -1.9, latitude: 55.0, population: 2_647_000,
    places: ['Newcastle upon Tyne', 'Sunderland', 'Durham', 'Middlesbrough', 'Gateshead'],
  },
  {
    code: 'E12000002', name: 'North West', typeDescription: 'Region of England',
    longitude: -2.7, latitude: 54.0, population: 7_417_000,
    places: ['Manchester', 'Liverpool', 'Preston', 'Bolton', 'Carlisle', 'Blackpool'],
  },
  {
    code: 'E12000003', name: 'Yorkshire and The Humber', typeDescription: 'Region of England',
    longitude: -1.3, latitude: 53.9, population: 5_481_000,
    places: ['Leeds', 'Sheffield', 'Bradford', 'Hull', 'York', 'Doncaster'],
  },
  {
    code: 'E12000004', name: 'East Midlands', typeDescription: 'Region of England',
    longitude: -0.9, latitude: 52.9, population: 4_880_000,
    places: ['Nottingham', 'Leicester', 'Derby', 'Lincoln', 'Northampton'],
  },
  {
    code: 'E12000005', name: 'West Midlands', typeDescription: 'Region of England',
    longitude: -2.2, latitude: 52.5, population: 5_950_000,
    places: ['Birmingham', 'Coventry', 'Wolverhampton', 'Stoke-on-Trent', 'Worcester'],
  },
  {
    code: 'E12000006', name: 'East of England', typeDescription: 'Region of England',
    longitude: 0.5, latitude: 52.2, population: 6_335_000,
    places: ['Cambridge', 'Norwich', 'Ipswich', 'Peterborough', 'Luton', 'Chelmsford'],
  },
  {
    code: 'E12000007', name: 'London', typeDescription: 'Region of England',
    longitude: -0.1, latitude: 51.5, population: 8_799_000,
    places: ['Camden', 'Hackney', 'Croydon', 'Lewisham', 'Ealing', 'Tower Hamlets', 'Barnet'],
  },
  {
    code: 'E12000008', name: 'South East', typeDescription: 'Region of England',
    longitude: -0.7, latitude: 51.3, population: 9_278_000,
    places: ['Brighton', 'Oxford', 'Reading', 'Southampton', 'Portsmouth', 'Canterbury'],
  },
  {
    code: 'E12000009', name: 'South West', typeDescription: 'Region of England',
    longitude: -3.2, latitude: 50.9, population: 5_701_000,
    places: ['Bristol', 'Plymouth', 'Exeter', 'Bath', 'Truro', 'Gloucester'],
  },
  {
    code: 'S92000003', name: 'Scotland', typeDescription: 'Nation of the UK',
    longitude: -4.2, latitude: 56.8, population: 5_437_000,
    places: ['Glasgow', 'Edinburgh', 'Aberdeen', 'Dundee', 'Inverness', 'Stirling'],
  },
  {
    code: 'W92000004', name: 'Wales', typeDescription: 'Nation of the UK',
    longitude: -3.8, latitude: 52.3, population: 3_107_000,
    places: ['Cardiff', 'Swansea', 'Newport', 'Wrexham', 'Bangor', 'Aberystwyth'],
  },
  {
    code: 'N92000002', name: 'Northern Ireland', typeDescription: 'Nation of the UK',
    longitude: -6.7, latitude: 54.6, population: 1_904_000,
    places: ['Belfast', 'Derry', 'Lisburn', 'Newry', 'Armagh', 'Enniskillen'],
  },
]

/** The GB country row's code in the `world-countries` data. */
export const UK_COUNTRY_CODE = 'GB'
