/**
 * Civic topics: one per tag. `policies` are verb phrases that read after "Should the government …",
 * and are the raw material of the seeded questions and of the choices of multiple-choice questions.
 */

export interface Topic {
  tag: string
  quickOrder: number | null
  /** Noun phrase for "Which policy on … ?". */
  subject: string
  policies: readonly string[]
  /** Complete questions written by hand. */
  questions: readonly string[]
}

export const TOPICS: readonly Topic[] = [
  {
    tag: 'NHS', quickOrder: 1, subject: 'the NHS',
    policies: ['fund the NHS through higher income tax', 'guarantee a GP appointment within a week', 'scrap prescription charges in England', 'give nurses a real-terms pay rise', 'use private hospitals to cut waiting lists', 'charge patients who miss GP appointments', 'recruit more doctors from abroad', 'build forty new hospitals', 'create a national care service', 'give NHS dentistry more funding', 'publish waiting times for every hospital', 'cap NHS spending on agency staff'],
    questions: ['The NHS should be funded through higher income tax.', 'Should the NHS remain free at the point of use for everyone?'],
  },
  {
    tag: 'Economy', quickOrder: 2, subject: 'the economy',
    policies: ['raise the minimum wage to £15 an hour', 'raise income tax for the highest earners', 'introduce a wealth tax on assets over £10 million', 'cut VAT on household energy bills', 'raise the personal tax allowance', 'pay down the national debt before increasing spending', 'cap interest rates on payday loans', 'introduce a windfall tax on record bank profits', 'cut business rates for high street shops', 'pilot a universal basic income', 'scrap the triple lock on the state pension', 'simplify the tax system'],
    questions: ['The UK economy works well for ordinary people.', 'Should the Bank of England be given a target for growth as well as inflation?'],
  },
  {
    tag: 'Environment', quickOrder: 3, subject: 'the environment',
    policies: ['ban new oil and gas licences in the North Sea', 'bring forward the ban on new petrol and diesel cars', 'plant a billion trees', 'make water companies pay fines straight into river clean-up', 'introduce a deposit return scheme for bottles and cans', 'ban single-use plastic packaging in supermarkets', 'build more onshore wind farms', 'tax frequent flyers more heavily', 'protect 30% of land for nature', 'require new homes to have solar panels', 'bring water companies back into public ownership', 'restrict wood-burning stoves in towns and cities'],
    questions: ['Should the UK reach net zero sooner than 2050?', 'Tackling climate change should come before economic growth.'],
  },
  {
    tag: 'Housing', quickOrder: 4, subject: 'housing',
    policies: ['build 300,000 new homes a year', 'introduce rent controls', 'ban no-fault evictions', 'abolish leasehold for new flats', 'build a new generation of council homes', 'scrap stamp duty for first-time buyers', 'tax empty homes more heavily', 'limit short-term holiday lets', 'allow building on parts of the green belt', 'make landlords meet energy efficiency standards', 'give councils powers to buy land at lower prices', 'cap service charges for leaseholders'],
    questions: ['Should councils be allowed to double council tax on second homes?', 'Young people today have a fair chance of owning a home.'],
  },
  {
    tag: 'Immigration', quickOrder: 5, subject: 'immigration',
    policies: ['reduce net migration below 100,000 a year', 'create safe and legal routes for asylum seekers', 'let asylum seekers work while their claims are processed', 'raise the salary threshold for skilled worker visas', 'offer more visas for care workers', 'process asylum claims in other countries', 'offer a fast-track visa for scientists and engineers', 'cut the fees for citizenship applications', 'lower the income requirement for family visas', 'agree a youth mobility scheme with the EU', 'publish an annual target for net migration', 'end the use of hotels to house asylum seekers'],
    questions: ['Immigration has been good for the UK economy.', 'Should international students be counted in the migration figures?'],
  },
  {
    tag: 'Education', quickOrder: 6, subject: 'schools and universities',
    policies: ['abolish university tuition fees', 'provide free school meals to every primary pupil', 'bring back maintenance grants for students', 'cap class sizes at 25 pupils', 'remove VAT from private school fees', 'replace Ofsted grades with a broader report card', 'make financial education compulsory in secondary schools', 'raise the starting salary for teachers', 'fund free childcare from nine months old', 'expand apprenticeships as an alternative to university', 'give schools more funding for special educational needs', 'make college courses free for adults who are retraining'],
    questions: ['Should smartphones be banned in all schools?', 'Exams at 16 should be scrapped.'],
  },
  {
    tag: 'Democracy', quickOrder: null, subject: 'political reform',
    policies: ['replace the House of Lords with an elected chamber', 'introduce proportional representation for general elections', "hold citizens' assemblies on major national decisions", 'cap individual donations to political parties', 'ban MPs from holding paid second jobs', 'give more powers to elected mayors', 'make it easier to recall MPs who break the rules', 'publish all meetings between ministers and lobbyists', 'devolve more tax-raising powers to local councils', 'hold general elections on a fixed four-year cycle', 'create a written constitution', 'strengthen the independence of the standards commissioner'],
    questions: ['Should the House of Lords be abolished?', 'Politicians in Westminster understand the concerns of people like me.'],
  },
  {
    tag: 'Voting', quickOrder: null, subject: 'elections',
    policies: ['lower the voting age to 16', 'scrap voter ID at polling stations', 'make voting compulsory', 'allow online voting in general elections', 'register everyone to vote automatically', 'give all long-term residents the vote in general elections', 'let prisoners serving short sentences vote', 'hold elections at weekends', 'create overseas constituencies for Britons abroad', 'keep polling stations open later', 'allow same-day voter registration', 'hold more referendums on big decisions'],
    questions: ['Should the voting age be lowered to 16?', 'Voters should have to show photo ID at polling stations.'],
  },
  {
    tag: 'Jobs', quickOrder: null, subject: 'jobs',
    policies: ['guarantee a job or training place for every young person', 'ban zero-hours contracts', 'make flexible working the default', 'offer retraining to workers in declining industries', 'give workers a right to switch off outside working hours', 'raise statutory sick pay', 'offer a jobs guarantee to the long-term unemployed', 'fund more apprenticeships in green industries', 'make large employers publish their ethnicity pay gaps', 'give gig economy workers full employment rights', 'extend paternity leave to six weeks at full pay', 'help older workers return to employment'],
    questions: ['Should every young person be guaranteed a job or training place?', 'There are enough good jobs where I live.'],
  },
  {
    tag: 'Work', quickOrder: null, subject: 'working life',
    policies: ['introduce a four-day working week', 'raise the state pension age more slowly', 'make working from home a legal right', 'strengthen trade union rights', 'ban fire and rehire', 'give all workers sick pay from the first day', 'cap the pay of public sector chief executives', 'make employers pay for workplace training', 'let workers elect members of company boards', 'extend the national living wage to under-21s', 'ban unpaid internships', "introduce paid carers' leave"],
    questions: ['Should the UK move to a four-day working week?', 'Working from home is good for productivity.'],
  },
  {
    tag: 'Laws', quickOrder: null, subject: 'law and order',
    policies: ['legalise assisted dying for terminally ill adults', 'legalise and regulate cannabis', 'introduce tougher sentences for knife crime', 'ban conversion practices', 'replace short prison sentences with community orders', 'make misogyny a hate crime', 'introduce compulsory identity cards', 'give victims of crime a legal right to be kept informed', 'ban the sale of disposable vapes', 'restore legal aid for family courts', 'raise the age of criminal responsibility to 12', 'put more police officers on the beat'],
    questions: ['Should assisted dying be legal for terminally ill adults?', 'Sentences for violent crime are too lenient.'],
  },
  {
    tag: 'Rights', quickOrder: null, subject: 'civil rights',
    policies: ['introduce a British bill of rights', 'leave the European Convention on Human Rights', 'protect freedom of speech at universities', 'ban live facial recognition cameras in public spaces', 'give disabled people a legal right to accessible transport', 'make it illegal to dismiss someone for their political views', 'enshrine the right to protest in law', 'guarantee a right to repair electronics', 'create a legal right to clean air', 'strengthen data privacy laws', 'give everyone a right to a bank account', 'guarantee access to free legal advice'],
    questions: ['Should the UK stay in the European Convention on Human Rights?', 'Free speech is under threat in the UK.'],
  },
  {
    tag: 'Society', quickOrder: null, subject: 'communities',
    policies: ['introduce a national civic service for 18-year-olds', 'fund youth clubs in every town', 'ban gambling adverts', 'end the two-child limit on benefits', 'raise universal credit', 'protect local pubs from closure', 'fund free public toilets', 'make libraries a protected public service', 'support more community-owned shops', 'appoint a minister for loneliness', 'build more community centres', 'make volunteering count towards pension credits'],
    questions: ['Should the two-child limit on benefits be scrapped?', 'People in my area pull together to improve the neighbourhood.'],
  },
  {
    tag: 'Trade', quickOrder: null, subject: 'trade',
    policies: ['rejoin the EU single market', 'rejoin the EU customs union', 'sign a trade deal with the United States', 'ban imports of food produced to lower standards', 'cut tariffs on imported food', 'require country-of-origin labels on all food', 'protect British farmers in trade deals', 'join more trade agreements in Asia and the Pacific', 'make it easier for small firms to export', 'restrict arms exports to countries at war', 'ban goods made with forced labour', 'agree a veterinary deal with the EU'],
    questions: ['Should the UK rejoin the European Union?', 'Brexit has been good for British business.'],
  },
  {
    tag: 'Travel', quickOrder: null, subject: 'travel',
    policies: ['offer free rail passes to 18-year-olds', 'tax private jets', 'cap airport expansion', 'build a third runway at Heathrow', 'bring back VAT-free shopping for tourists', 'let cities charge a tourist tax', 'make passport renewals cheaper', 'ban short-haul flights where a train takes under three hours', 'reopen closed railway lines', 'fund night trains to Europe', 'protect travellers when holidays are cancelled', 'make cycling and walking routes safer'],
    questions: ['Should cities be allowed to charge a tourist tax?', 'Flying should cost more to reflect its impact on the climate.'],
  },
  {
    tag: 'Transport', quickOrder: null, subject: 'transport',
    policies: ['bring the railways back into public ownership', 'cap bus fares at £2 across the country', 'build HS2 all the way to Manchester', 'freeze fuel duty', 'replace fuel duty with road pricing', 'ban pavement parking', 'lower the default speed limit in towns to 20mph', 'electrify the whole rail network', 'fund more charging points for electric cars', 'give local councils control over bus routes', 'introduce a single national rail ticket', 'make public transport free for under-18s'],
    questions: ['Should the railways be brought back into public ownership?', 'Public transport where I live is reliable.'],
  },
  {
    tag: 'Investment', quickOrder: null, subject: 'public investment',
    policies: ['set up a national wealth fund for green industry', 'spend more on research and development than any other G7 country', 'give tax relief to pension funds that invest in British companies', 'create a public investment bank for the regions', 'spend more on flood defences', 'fund new nuclear power stations', 'build gigafactories for electric car batteries', 'invest in fast broadband for rural areas', 'move more civil service jobs out of London', 'guarantee long-term funding for local buses', 'match private investment in start-ups', 'invest in community-owned businesses'],
    questions: ['Should the government borrow more to invest in infrastructure?', 'Investment in my region has been neglected.'],
  },
  {
    tag: 'Health', quickOrder: null, subject: 'public health',
    policies: ['extend the sugar tax to more foods', 'ban junk food adverts before 9pm', 'raise the smoking age by one year every year', 'fund free gym memberships for people on low incomes', 'put mental health workers in every school', 'ban the sale of energy drinks to under-16s', 'introduce minimum unit pricing for alcohol', 'expand free flu vaccinations', 'increase funding for hospices', 'set mental health waiting time targets', 'tax ultra-processed foods', 'provide free period products in public buildings'],
    questions: ['Should the sale of tobacco be phased out for future generations?', 'The government should do more to tackle obesity.'],
  },
  {
    tag: 'Energy', quickOrder: null, subject: 'energy',
    policies: ['nationalise the energy grid', 'insulate every home that needs it', 'cap energy bills permanently', 'end fracking for good', 'build small modular nuclear reactors', 'create a publicly owned energy company', 'help households pay for solar panels', 'introduce a social tariff for energy', 'ban gas boilers in new homes', 'pay communities that host wind farms', 'tax energy company profits', 'invest in tidal power'],
    questions: ['Should the UK build more nuclear power stations?', 'Energy bills are affordable for my household.'],
  },
]

export const AUDIENCES: readonly string[] = [
  'young people', 'pensioners', 'working families', 'small businesses', 'rural communities', 'disabled people',
]
