import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser } from 'playwright-core'
import { chromiumAvailable, launchChromium, skipWithoutChromium } from '../helpers/chromium.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * The web app runs on another origin than the API: in a real browser, its calls (with `Authorization: Token`)
 * must pass CORS, and its account flow must work as it is written: check the address, register with a
 * generated numeric password, sign in, read and edit the profile, sign out, and see 401 for the old token.
 */
const available = chromiumAvailable
const skip = skipWithoutChromium

let api: TestApp
let apiUrl: string
let page: http.Server
let pageUrl: string
let browser: Browser | undefined

/** The page's script, run in the browser: the calls of the original web app, in its shapes. */
function webAppScript(base: string, name: string): string {
  return `
  const base = ${JSON.stringify(base)}
  const call = async (method, path, token, body) => {
    const headers = {}
    if (token) headers.Authorization = 'Token ' + token
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : null }
  }
  ;(async () => {
    const out = {}
    const email = ${JSON.stringify(`${name}@example.org`)}
    out.anonymousMe = (await call('GET', '/auth/me/')).status
    out.checkBefore = (await call('GET', '/auth/check_email/?email=' + email)).body
    const register = await call('POST', '/auth/register/', null, { email, username: ${JSON.stringify(name)}, password: Math.floor(Math.random() * 1e12), agreed_terms: true,
      location: { type: 'Point', coordinates: ['-0.1276', '51.5072'] }, gender: 2, dob: '1990-01-05', first_name: 'Web', last_name: 'App' })
    out.register = { status: register.status, id: register.body.id, token: typeof register.body.auth_token, body: register.body }
    const token = register.body.auth_token
    out.checkAfter = (await call('GET', '/auth/check_email/?email=' + email)).body
    const me = await call('GET', '/auth/me/', token)
    out.me = { status: me.status, id: me.body.id, photo: me.body.photo, district: me.body.district, defHideAnswers: me.body.defHideAnswers }
    const patch = await call('PATCH', '/auth/me/', token, { dob: '1985-03-02', gender: '1', address: 'Manchester', location: { type: 'Point', coordinates: ['-2.2426', '53.4808'] } })
    out.patch = { status: patch.status, gender: patch.body.gender, dob: patch.body.dob }
    out.logout = (await call('POST', '/auth/logout/', token, null)).status
    out.afterLogout = (await call('GET', '/auth/me/', token)).status
    const second = ${JSON.stringify(`${name}b@example.org`)}
    await call('POST', '/auth/register/', null, { email: second, username: ${JSON.stringify(`${name}b`)}, password: 'lantern-orchard-42' })
    const login = await call('POST', '/auth/login/', null, { username: second, password: 'lantern-orchard-42' })
    const wrong = await call('POST', '/auth/login/', null, { username: second, password: 'not-this-one' })
    out.login = { status: login.status, me: (await call('GET', '/auth/me/', login.body.auth_token)).body.username, wrong: wrong.body }
    document.getElementById('result').textContent = JSON.stringify(out)
  })().catch((error) => { document.getElementById('result').textContent = JSON.stringify({ error: String(error) }) })`
}

before(async () => {
  if (!available) return
  page = http.createServer()
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
  api = await createTestApp('tiny', { CORS_ORIGINS: pageUrl })
  apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' })
  const name = `browser${process.pid}`
  page.on('request', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(`<!doctype html><title>web app</title><pre id="result"></pre><script>${webAppScript(apiUrl, name)}</script>`)
  })
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await api?.close()
  await new Promise((resolve) => (page ? page.close(resolve) : resolve(undefined)))
})

test('the web app on another origin registers, reads and edits the profile, signs out and signs in through CORS', { skip }, async () => {
  const tab = await browser!.newPage()
  await tab.goto(`${pageUrl}/`)
  await tab.waitForFunction(() => document.getElementById('result')?.textContent !== '', undefined, { timeout: 60_000 })
  const result = JSON.parse((await tab.textContent('#result'))!)
  assert.equal(result.error, undefined, result.error)
  assert.equal(result.anonymousMe, 403, 'anonymous /auth/me/ is 403, so the web app does not sign out in a loop')
  assert.deepEqual(result.checkBefore, { result: false })
  assert.equal(result.register.status, 201, JSON.stringify(result.register.body))
  assert.equal(result.register.token, 'string')
  assert.deepEqual(result.checkAfter, { result: true })
  assert.equal(result.me.status, 200)
  assert.equal(result.me.id, result.register.id)
  assert.match(result.me.photo, /^http/, 'photo is a URL, never null')
  assert.ok(Number.isInteger(result.me.district))
  assert.equal(result.me.defHideAnswers, false)
  assert.deepEqual(result.patch, { status: 200, gender: 1, dob: '1985-03-02' })
  assert.equal(result.logout, 200)
  assert.equal(result.afterLogout, 401)
  assert.deepEqual(result.login, {
    status: 200,
    me: `browser${process.pid}b`,
    wrong: { non_field_errors: ['Unable to log in with provided credentials.'] },
  })
})

test('a page on an origin that is not configured cannot read the API with a token', { skip }, async () => {
  const stranger = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(`<!doctype html><pre id="result"></pre><script>
      fetch(${JSON.stringify(apiUrl)} + '/auth/me/', { headers: { Authorization: 'Token 0123' } })
        .then((r) => 'read ' + r.status, (e) => 'blocked')
        .then((text) => { document.getElementById('result').textContent = text })</script>`)
  })
  await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve))
  try {
    const tab = await browser!.newPage()
    await tab.goto(`http://127.0.0.1:${(stranger.address() as AddressInfo).port}/`)
    await tab.waitForFunction(() => document.getElementById('result')?.textContent !== '', undefined, { timeout: 60_000 })
    assert.equal(await tab.textContent('#result'), 'blocked')
  } finally {
    await new Promise((resolve) => stranger.close(resolve))
  }
})
