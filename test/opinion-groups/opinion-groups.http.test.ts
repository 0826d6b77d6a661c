/**
 * /api/opinion_groups/ through HTTP: two camps of people answering a collection's questions are found as two groups,
 * with the questions that set each apart and the one they share; what is published follows the disclosure rules;
 * the caller learns only their own place; the kept result is checked again in the background.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertQuestion, insertTag, insertUser } from '../helpers/fixtures.ts'
import { answer as answerAs, campsCollection, rating, type CampPerson } from './camps.ts'

let t: TestApp
let collection: number
let questions: number[]
let people: CampPerson[] = []

const answer = (person: CampPerson, question: number, value: number, isPrivate = false) => answerAs(t, person, question, value, isPrivate)

before(async () => {
  t = await createTestApp('empty', { OPINION_GROUPS_REFRESH_MS: '0' })
  ;({ collection, questions, people } = await campsCollection(t, 24))
})
after(() => t?.close())

test('two camps are two groups of twelve, each set apart by the questions it rates high, united by the one all rate high', async () => {
  const body = await t.json(`/api/opinion_groups/?collection=${collection}`)
  assert.equal(body.scope, 'collection')
  assert.equal(body.scope_id, collection)
  assert.equal(body.participants, 24)
  assert.equal(body.answers_counted, 24 * 9)
  assert.equal(body.group_count.k, 2)
  assert.deepEqual(
    body.groups.map((g: { size: number }) => g.size),
    [12, 12],
  )
  for (const group of body.groups) {
    const agreed = group.representative
      .filter((r: { repful_for: string }) => r.repful_for === 'agree')
      .map((r: { question: number }) => r.question)
    assert.ok(agreed.length > 0, 'each group has a question it stands out agreeing with')
    const block =
      agreed.every((q: number) => questions.indexOf(q) < 4) ||
      agreed.every((q: number) => questions.indexOf(q) >= 4 && questions.indexOf(q) < 8)
    assert.ok(block, `a group's agreements are one camp's questions: ${agreed.map((q: number) => questions.indexOf(q))}`)
  }
  assert.equal(body.consensus[0].question, questions[8], 'the question everyone rates high leads the consensus')
  const shared = body.questions.find((c: { question: number }) => c.question === questions[8])
  // Everyone agrees: ∏ over the two groups of (agree + 1) / (seen + 2) = ((12 + 1) / (12 + 2))².
  assert.ok(Math.abs(shared.consensus - (13 / 14) ** 2) < 1e-12, String(shared.consensus))
  assert.ok(body.divisive.every((c: { question: number }) => c.question !== questions[8]))
  assert.equal(body.map.cells.reduce((sum: number, cell: { count: number }) => sum + cell.count, 0) <= 24, true)
  assert.ok(
    body.map.cells.every((cell: { count: number }) => cell.count >= 5),
    'no square of fewer than MIN_CELL_SIZE',
  )
  assert.equal(body.me, null, 'an anonymous caller has no place')
})

test('a caller learns their own place and group, and the group is their camp’s', async () => {
  const labels = new Map<string, number>()
  for (const person of people.slice(0, 6)) {
    const body = await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${person.token}` })
    assert.equal(body.me.clustered, true)
    assert.equal(typeof body.me.x, 'number')
    const label = labels.get(person.camp) ?? body.me.group
    labels.set(person.camp, label)
    assert.equal(body.me.group, label, 'people of one camp share a group')
  }
  assert.notEqual(labels.get('a'), labels.get('b'))
})

test('the CSV lists exactly the cells of the JSON', async () => {
  const body = await t.json(`/api/opinion_groups/?collection=${collection}`)
  const csv = await t.get(`/api/opinion_groups/?collection=${collection}&format=csv`)
  assert.equal(csv.statusCode, 200)
  assert.match(csv.headers['content-type'] as string, /^text\/csv/)
  const lines = csv.body.trim().split('\r\n')
  assert.equal(lines[0], 'group,group_size,question,choice,text,agree,disagree,seen,consensus,divisiveness')
  const cells = body.questions.flatMap((c: { groups: unknown[] }) => c.groups)
  assert.equal(lines.length - 1, cells.length)
})

test('the SVG map draws what the JSON publishes: its squares, a disc per group, the caller, the legend in words', async () => {
  const body = await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${people[0].token}` })
  const svg = await t.get(`/api/opinion_groups/?collection=${collection}&format=svg`, { authorization: `Token ${people[0].token}` })
  assert.equal(svg.statusCode, 200)
  assert.match(svg.headers['content-type'] as string, /^image\/svg\+xml/)
  assert.match(svg.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  assert.equal(svg.body.match(/<rect class="square"/g)?.length ?? 0, body.map.cells.length)
  assert.equal(svg.body.match(/<g class="group">/g)?.length, body.groups.length)
  for (const group of body.groups)
    assert.ok(svg.body.includes(`${group.size} people (${Math.round(group.share * 100)}%`), `group ${group.label}`)
  assert.equal(svg.body.match(/<g class="me">/g)?.length, 1, 'the caller’s own place')
  const anonymous = await t.get(`/api/opinion_groups/?collection=${collection}&format=svg`)
  assert.equal(anonymous.body.match(/<g class="me">/g), null, 'nobody’s place for an anonymous caller')
  assert.doesNotMatch(anonymous.body, /[<&](?![a-z/!?#]|amp;|lt;|gt;|quot;|apos;)/, 'no unescaped markup characters in the text')
})

test('the browsable page shows the map above the JSON, as a picture the same address draws', async () => {
  const page = await t.get(`/api/opinion_groups/?collection=${collection}`, { accept: 'text/html' })
  assert.equal(page.statusCode, 200)
  assert.match(page.headers['content-type'] as string, /^text\/html/)
  const src = page.body.match(/<figure class="picture"><img src="([^"]+)" alt="[^"]+"><\/figure>/)?.[1]
  assert.equal(src, `/api/opinion_groups/?collection=${collection}&amp;format=svg`)
  // The browser asks for the image as an image: it gets the SVG, under the page's policy (img-src 'self').
  const image = await t.get(src!.replace('&amp;', '&'), { accept: 'image/avif,image/webp,image/*,*/*;q=0.8' })
  assert.equal(image.statusCode, 200)
  assert.match(image.headers['content-type'] as string, /^image\/svg\+xml/)
  assert.match(page.headers['content-security-policy'] as string, /img-src 'self'/)
  // A listing that draws nothing shows no picture.
  const listing = await t.get('/api/questions/', { accept: 'text/html' })
  assert.doesNotMatch(listing.body, /<figure class="picture">/)
})

test('no scope, two scopes, or an unknown one: 400 naming the fields, 404', async () => {
  const none = await t.get('/api/opinion_groups/')
  assert.equal(none.statusCode, 400)
  assert.deepEqual(Object.keys(none.json()).sort(), ['collection', 'group', 'tag'])
  const two = await t.get(`/api/opinion_groups/?collection=${collection}&tag=1`)
  assert.equal(two.statusCode, 400)
  assert.deepEqual(Object.keys(two.json()).sort(), ['collection', 'tag'])
  assert.equal((await t.get('/api/opinion_groups/?collection=abc')).statusCode, 400)
  assert.equal((await t.get('/api/opinion_groups/?collection=2147483000')).statusCode, 404)
})

test('the same answers give the same groups, byte for byte; new answers are counted after a background check', async () => {
  const first = await t.get(`/api/opinion_groups/?collection=${collection}`)
  const again = await t.get(`/api/opinion_groups/?collection=${collection}`)
  assert.equal(again.body, first.body)
  const before = first.json()
  const newcomers = []
  for (let i = 0; i < 6; i++) {
    const user = await insertUser(t.database.db)
    newcomers.push({ id: user.id, token: await t.tokenFor(user.id), camp: 'a' as const })
  }
  for (const [i, person] of newcomers.entries()) for (let q = 0; q < 9; q++) await answer(person, questions[q], rating('a', q, i))
  let after = before
  for (let tries = 0; tries < 50 && after.answers_counted === before.answers_counted; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    after = await t.json(`/api/opinion_groups/?collection=${collection}`)
  }
  assert.equal(after.answers_counted, before.answers_counted + 6 * 9)
  assert.equal(after.participants, 30)
  const sizes = new Map(after.groups.map((g: { label: number; size: number }) => [g.label, g.size]))
  const labelsBefore = before.groups.map((g: { label: number }) => g.label).sort()
  assert.deepEqual([...sizes.keys()].sort(), labelsBefore, 'the groups keep their labels')
  assert.deepEqual([...sizes.values()].sort(), [12, 18])
})

test('a private answer in a cell of fewer than MIN_CELL_SIZE private answers is not counted in what is shown', async () => {
  const question = questions[0]
  const before = (await t.json(`/api/opinion_groups/?collection=${collection}`)).questions.find(
    (c: { question: number }) => c.question === question,
  )
  const person = people.find((p) => p.camp === 'b')!
  // Camp b rated it 1; privately it becomes 5: the shown counts must stay those of the public answers.
  await answer(person, question, 5, true)
  let after = before
  for (let tries = 0; tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const body = await t.json(`/api/opinion_groups/?collection=${collection}`)
    after = body.questions.find((c: { question: number }) => c.question === question)
    if (body.answers_counted !== undefined && JSON.stringify(after) !== JSON.stringify(before)) break
  }
  const cellsOf = (column: { groups: { label: number; agree: number; disagree: number; seen: number }[] }) =>
    column.groups.map(({ agree, disagree, seen }) => agree + disagree + seen)
  const shownTotal = (column: { groups: { seen: number }[] }) => column.groups.reduce((sum, g) => sum + g.seen, 0)
  // The private answer left the public ones: its group's cell counts one answer fewer, never the private rating.
  assert.equal(shownTotal(after), shownTotal(before) - 1)
  assert.ok(cellsOf(after).length > 0)
  const agrees = (column: { groups: { agree: number }[] }) => column.groups.reduce((sum, g) => sum + g.agree, 0)
  assert.equal(agrees(after), agrees(before), 'the private 5 is not an agree anyone sees')
})

test("each group's census-weighted share: camps of equal size standing for one and three thousand adults", async () => {
  const db = t.database.db
  const region = (
    await db.insertInto('areas').values({ code: 'OG-R1', name: 'Region OG', m_type: 'region' }).returning('id').executeTakeFirstOrThrow()
  ).id
  // 1,000 people aged 40 (band 35-45) and 3,000 aged 70 (band 65-75).
  const ages = Array.from({ length: 91 }, (_, age) => (age === 40 ? 1000 : age === 70 ? 3000 : 0))
  await db
    .insertInto('census_data')
    .values({ area_id: region, code: 'OG-C1', name: 'census', date: '2021-03-21', ages, all_ages: 4000 })
    .execute()
  const year = new Date().getUTCFullYear()
  for (const person of people)
    await db
      .updateTable('users')
      .set({ region_id: region, dob: `${year - (person.camp === 'a' ? 40 : 70)}-01-01` })
      .where('id', '=', person.id)
      .execute()
  // A new answer makes the next check recompute, and the recompute reads ages and regions afresh.
  await answer(people[0], questions[8], rating(people[0].camp, 8, 0) === 5 ? 4 : 5)
  let body = await t.json(`/api/opinion_groups/?collection=${collection}`)
  for (let tries = 0; tries < 50 && body.weighting.people === 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    body = await t.json(`/api/opinion_groups/?collection=${collection}`)
  }
  // The 24 of the two camps have ages and the region; the six who joined later do not.
  assert.equal(body.weighting.people, 24)
  assert.equal(body.weighting.method, 'post-stratified')
  const campOf = async (person: (typeof people)[number]) =>
    (await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${person.token}` })).me.group
  const groupA = await campOf(people.find((p) => p.camp === 'a')!)
  const groupB = await campOf(people.find((p) => p.camp === 'b')!)
  const share = (label: number) => body.groups.find((g: { label: number }) => g.label === label).weighted_share
  assert.ok(Math.abs(share(groupA) - 0.25) < 1e-12, String(share(groupA)))
  assert.ok(Math.abs(share(groupB) - 0.75) < 1e-12, String(share(groupB)))
})

test('people whose answers are all private move nothing published until k of them are in a group, and then count in it', async () => {
  // A recompute shows as a new computed_at: private answers leave answers_counted where it was.
  const recomputed = async (since: string) => {
    for (let tries = 0; tries < 50; tries++) {
      const body = await t.json(`/api/opinion_groups/?collection=${collection}`)
      if (body.computed_at !== since) return body
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.fail('no recompute')
  }
  const placed = async (person: CampPerson) => {
    for (let tries = 0; tries < 50; tries++) {
      const { me } = await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${person.token}` })
      if (me) return me
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.fail('never placed')
  }
  const join = async (count: number) => {
    const joined = []
    for (let i = 0; i < count; i++) {
      const user = await insertUser(t.database.db)
      const person = { id: user.id, token: await t.tokenFor(user.id), camp: 'a' as const }
      for (let q = 0; q < 9; q++) await answer(person, questions[q], rating('a', q, i), true)
      joined.push(person)
    }
    return joined
  }
  const before = await t.get(`/api/opinion_groups/?collection=${collection}`)
  const sizeOf = (body: { groups: { label: number; size: number }[] }, label: number) => body.groups.find((g) => g.label === label)!.size
  const groupA = (await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${people[0].token}` })).me.group
  const groupB = before.json().groups.find((g: { label: number }) => g.label !== groupA).label

  // With one earlier private answer (camp b's, above), three more people make four with a private answer: under k.
  // Each is placed for themselves, and the kept run is not recomputed: the same bytes, computed_at included.
  const few = await join(3)
  for (const person of few) {
    const me = await placed(person)
    assert.equal(me.clustered, false, 'placed on the model, not in it')
    assert.equal(me.group, groupA, 'their own answers lean to camp a’s group')
  }
  assert.equal((await t.get(`/api/opinion_groups/?collection=${collection}`)).body, before.body)

  // Two more: six people hold a private answer, five of them in camp a's group, which now counts them.
  await join(2)
  const afterMore = await recomputed(before.json().computed_at)
  assert.equal(sizeOf(afterMore, groupA), sizeOf(before.json(), groupA) + 5)
  // Camp b's group holds one person with a private answer: under k, so the model does not take it (issue 42), and
  // they count by their public answers as before. (It used to count them nowhere: its size then fell by one,
  // which told that one of its members had answered privately, and so who.)
  assert.equal(sizeOf(afterMore, groupB), sizeOf(before.json(), groupB))
  assert.equal(afterMore.clustered, before.json().clustered + 5)
  assert.equal(afterMore.participants, before.json().participants + 5)
  assert.equal(afterMore.answers_counted, before.json().answers_counted, 'answers_counted counts public answers')
  const me = (await t.json(`/api/opinion_groups/?collection=${collection}`, { authorization: `Token ${few[0].token}` })).me
  assert.deepEqual([me.group, me.clustered], [groupA, true])
})

// Last: the questions join a group here.
test('a tag and a group are scopes too: their questions, the same groups', async () => {
  const db = t.database.db
  const tag = await insertTag(db)
  const group = await insertGroup(db)
  for (const question of questions) {
    await db.insertInto('question_tags').values({ question_id: question, tag_id: tag.id }).execute()
    await db.updateTable('questions').set({ group_id: group.id }).where('id', '=', question).execute()
  }
  const byCollection = await t.json(`/api/opinion_groups/?collection=${collection}`)
  for (const scope of [`tag=${tag.id}`, `group=${group.id}`]) {
    const body = await t.json(`/api/opinion_groups/?${scope}`)
    assert.equal(body.scope, scope.split('=')[0])
    assert.equal(body.participants, byCollection.participants)
    assert.deepEqual(
      body.groups.map((g: { size: number }) => g.size).sort(),
      byCollection.groups.map((g: { size: number }) => g.size).sort(),
    )
  }
  assert.equal((await t.get(`/api/opinion_groups/?tag=2147483000`)).statusCode, 404)
})

test('a scope read in windows of accounts (OPINION_GROUPS_ANSWERS_PER_READ) has the same groups, byte for byte', async () => {
  const db = t.database.db
  // The camps' questions and a multiple-choice one, which both camps answer.
  const tag = await insertTag(db)
  const author = await insertUser(db)
  const mcq = (await insertQuestion(db, author.id, { publish: true, subtype: 'mcq' })).id
  const choices = await db
    .insertInto('question_choices')
    .values([0, 1].map((i) => ({ question_id: mcq, text: `Choice ${i}`, store_number: i })))
    .returning('id')
    .execute()
  for (const question of [...questions, mcq])
    await db.insertInto('question_tags').values({ question_id: question, tag_id: tag.id }).execute()
  for (const [i, person] of people.entries()) {
    const picked = await t.send('POST', '/api/question_choice_votes/', { object_id: choices[i % 2].id, value: 5 }, person.token)
    assert.equal(picked.statusCode, 201, picked.body)
  }
  const windowed = await createTestApp('empty', { OPINION_GROUPS_REFRESH_MS: '0', OPINION_GROUPS_ANSWERS_PER_READ: '40' }, undefined, {
    database: t.database,
  })
  try {
    const url = `/api/opinion_groups/?tag=${tag.id}`
    const read = async (app: TestApp) => {
      await db.deleteFrom('opinion_group_runs').execute()
      await db.deleteFrom('opinion_group_places').execute()
      const response = await app.get(url)
      assert.equal(response.statusCode, 200, response.body)
      const { computed_at: _, ...body } = response.json()
      return { body, statements: Number(response.headers['x-query-count']) }
    }
    const whole = await read(t)
    const inWindows = await read(windowed)
    assert.deepEqual(inWindows.body, whole.body)
    const counted = async (table: 'question_votes' | 'question_choice_votes') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('question_id', 'in', [...questions, mcq])
            .where('private', '=', false)
            .where('skipped', '=', false)
            .executeTakeFirstOrThrow()
        ).n,
      )
    assert.equal(whole.body.answers_counted, (await counted('question_votes')) + (await counted('question_choice_votes')))
    assert.ok(whole.body.answers_counted > people.length * 10)
    assert.ok(whole.body.questions.some((c: { question: number }) => c.question === mcq))
    // 40 answers a read: the ~280 answers take several statements where one did.
    assert.ok(inWindows.statements >= whole.statements + 5, `${whole.statements} statements, in windows ${inWindows.statements}`)
  } finally {
    await windowed.close()
  }
})
