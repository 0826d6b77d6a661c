/** Common given names and surnames in the UK, to make seeded people look ordinary. */

export const FEMALE_NAMES: readonly string[] = [
  'Olivia', 'Amelia', 'Isla', 'Ava', 'Mia', 'Ivy', 'Lily', 'Isabella', 'Rosie', 'Sophia', 'Grace', 'Freya',
  'Florence', 'Willow', 'Poppy', 'Evie', 'Elsie', 'Emily', 'Ella', 'Phoebe', 'Sienna', 'Charlotte', 'Sophie',
  'Aisha', 'Zara', 'Priya', 'Fatima', 'Chloe', 'Hannah', 'Jessica', 'Laura', 'Rebecca', 'Sarah', 'Emma',
  'Rachel', 'Claire', 'Helen', 'Karen', 'Susan', 'Margaret', 'Patricia', 'Janet', 'Gillian', 'Siobhan',
  'Niamh', 'Catriona', 'Eilidh', 'Cerys', 'Ffion', 'Megan', 'Bethan', 'Nia', 'Amira', 'Maryam', 'Joanna',
]

export const MALE_NAMES: readonly string[] = [
  'Oliver', 'George', 'Noah', 'Arthur', 'Muhammad', 'Leo', 'Harry', 'Oscar', 'Archie', 'Henry', 'Theodore',
  'Freddie', 'Jack', 'Charlie', 'Thomas', 'James', 'William', 'Alfie', 'Jacob', 'Samuel', 'Joshua', 'Daniel',
  'Benjamin', 'Ethan', 'Lucas', 'Adam', 'Mohammed', 'Ibrahim', 'Arjun', 'Ravi', 'David', 'Paul', 'Mark',
  'Andrew', 'Richard', 'Peter', 'Stephen', 'Michael', 'Robert', 'John', 'Ian', 'Graham', 'Colin', 'Gareth',
  'Rhys', 'Dylan', 'Callum', 'Euan', 'Ewan', 'Hamish', 'Fraser', 'Ciaran', 'Conor', 'Sean', 'Kwame',
]

export const NEUTRAL_NAMES: readonly string[] = [
  'Alex', 'Sam', 'Jordan', 'Charlie', 'Robin', 'Jamie', 'Morgan', 'Riley', 'Taylor', 'Avery', 'Rowan', 'Kit',
]

export const SURNAMES: readonly string[] = [
  'Smith', 'Jones', 'Williams', 'Taylor', 'Brown', 'Davies', 'Evans', 'Wilson', 'Thomas', 'Johnson',
  'Roberts', 'Robinson', 'Thompson', 'Wright', 'Walker', 'White', 'Edwards', 'Hughes', 'Green', 'Hall',
  'Lewis', 'Harris', 'Clarke', 'Patel', 'Jackson', 'Wood', 'Turner', 'Martin', 'Cooper', 'Hill', 'Ward',
  'Morris', 'Moore', 'Clark', 'Lee', 'King', 'Baker', 'Harrison', 'Morgan', 'Allen', 'James', 'Scott',
  'Phillips', 'Watson', 'Davis', 'Parker', 'Price', 'Bennett', 'Young', 'Griffiths', 'Mitchell', 'Kelly',
  'Cook', 'Carter', 'Richardson', 'Bailey', 'Collins', 'Bell', 'Shaw', 'Murphy', 'Miller', 'Cox', 'Richards',
  'Khan', 'Marshall', 'Anderson', 'Simpson', 'Ellis', 'Adams', 'Singh', 'Begum', 'Wilkinson', 'Foster',
  'Chapman', 'Powell', 'Webb', 'Rogers', 'Gray', 'Mason', 'Ali', 'Hunt', 'Hussain', 'Campbell', 'Matthews',
  'Owen', 'Palmer', 'Holmes', 'Mills', 'Barnes', 'Knight', 'Lloyd', 'Butler', 'Russell', 'Barker', 'Fisher',
  'Stevens', 'Jenkins', 'Murray', 'Dixon', 'Harvey', 'Graham', 'Pearson', 'Ahmed', 'Fletcher', 'Walsh',
  'Kaur', 'Gibson', 'Howard', 'Andrews', 'Stewart', 'Elliott', 'Reynolds', 'Saunders', 'Payne', 'Fox',
  'Ford', 'Pearce', 'Day', 'Brooks', 'West', 'Lawrence', 'Cole', 'Atkinson', 'Bradley', 'Spencer', 'Gill',
  'Dawson', 'Ball', 'Burton', "O'Brien", 'Watts', 'Rose', 'Booth', 'Perry', 'Ryan', 'Grant', 'Wells',
  'Armstrong', 'Francis', 'Rees', 'Hayes', 'Hart', 'Hudson', 'Newman', 'Barrett', 'Webster', 'Hunter',
  'Gregory', 'Carr', 'Lowe', 'Page', 'Marsh', 'Riley', 'Dunn', 'Woods', 'Parsons', 'Berry', 'Stone',
  'Reid', 'Holland', 'Hawkins', 'Harding', 'Porter', 'Robertson', 'Newton', 'Oliver', 'Reed', 'Kennedy',
  'MacDonald', 'McLaughlin', 'Doherty', 'Quinn', 'Nolan', 'Okafor', 'Mensah', 'Nowak', 'Kowalski', 'Chen',
]

export const PARTIES: readonly { name: string; id: string; weight: number }[] = [
  { name: 'Labour', id: 'labour', weight: 30 },
  { name: 'Conservative', id: 'conservative', weight: 24 },
  { name: 'Liberal Democrats', id: 'liberal-democrats', weight: 14 },
  { name: 'Green', id: 'green', weight: 10 },
  { name: 'Reform UK', id: 'reform-uk', weight: 10 },
  { name: 'Independent', id: 'independent', weight: 6 },
]

/** Parties standing only in one nation, by the nation's ONS code. */
export const NATIONAL_PARTIES: Readonly<Record<string, { name: string; id: string; weight: number }>> = {
  S92000003: { name: 'SNP', id: 'snp', weight: 35 },
  W92000004: { name: 'Plaid Cymru', id: 'plaid-cymru', weight: 18 },
}

export const BIO_PHRASES: readonly string[] = [
  'Parent of two, school governor and keen cyclist.',
  'Retired nurse. Still care deeply about the NHS.',
  'Small business owner on the high street.',
  'Student interested in politics, climate and housing.',
  'Volunteer at the local food bank.',
  'Engineer by day, allotment enthusiast by weekend.',
  'Teacher. Opinions are my own.',
  'Lifelong trade unionist.',
  'Farmer and parish councillor.',
  'Trying to understand both sides of every argument.',
  'Commuter who spends too long on delayed trains.',
  'Carer for my mum; interested in social care reform.',
  'Software developer and open data advocate.',
  'Musician and part-time youth worker.',
  'Chartered accountant with a soft spot for local history.',
  'New to the area and keen to get involved.',
]

export const OTHER_COUNTRY_CODES: readonly string[] = [
  'IE', 'US', 'FR', 'DE', 'ES', 'IN', 'PL', 'NG', 'AU', 'CA', 'NL', 'IT', 'PT', 'PK', 'ZA', 'NZ', 'SE',
]
