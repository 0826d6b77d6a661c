import { test } from 'node:test'
import assert from 'node:assert/strict'
import { scrape, type Scrape } from '../helpers/metrics.ts'
import { clusterSkipReason, startCluster } from '../helpers/postgres-cluster.ts'
import { freePort, serveUntilReady, until } from '../reliability/support.ts'

/**
 * The replica metrics of a `serve` process reading a streaming replica (docs/operations.md, Metrics): the replica's
 * state and lag, its pool, and where the reads of GET requests ran; then the replica stopped.
 */

test('with a read replica: its state, lag and pool, and the reads it took, in the metrics', { skip: clusterSkipReason() }, async () => {
  const cluster = await startCluster({ replica: true })
  const replica = new URL(cluster.replicaUrl!)
  const label = `${replica.hostname}:${replica.port}`
  const metricsPort = await freePort()
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  const { server, base } = await serveUntilReady({
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_DIRECT_URL: '',
    DATABASE_REPLICA_URLS: cluster.replicaUrl!,
    METRICS_PORT: String(metricsPort),
  })
  try {
    let metrics: Scrape = await scrape(metricsUrl)
    await until(async () => {
      metrics = await scrape(metricsUrl)
      return metrics.sum('civic_db_replica_state', { replica: label, state: 'ok' }) === 1
    }, `the replica is ok\n${cluster.logs()}`)
    assert.equal(metrics.sum('civic_db_replica_state', { replica: label, state: 'lagging' }), 0)
    assert.equal(metrics.sum('civic_db_replica_state', { replica: label, state: 'down' }), 0)
    assert.ok(metrics.has('civic_db_replica_lag_seconds', { replica: label }))
    assert.equal(metrics.sum('civic_db_pool_max_connections', { database: label }), 10)
    assert.equal(metrics.sum('civic_db_pool_max_connections', { database: 'primary' }), 10)

    // Anonymous reads built afresh (no kept answer) run on the replica.
    const before = metrics
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${base}/api/questions/?page_size=5`, { headers: { 'cache-control': 'no-cache' } })
      assert.equal(response.status, 200)
      await response.arrayBuffer()
    }
    await until(async () => {
      metrics = await scrape(metricsUrl)
      return (
        metrics.sum('civic_db_read_statements_total', { target: 'replica' }) >
        before.sum('civic_db_read_statements_total', { target: 'replica' })
      )
    }, 'reads counted on the replica')
    assert.ok(metrics.has('civic_db_pool_connections', { database: label, state: 'idle' }))

    // The replica stops: it is down, has no lag, and reads go to the primary.
    cluster.stopReplica()
    await until(async () => {
      metrics = await scrape(metricsUrl)
      return metrics.sum('civic_db_replica_state', { replica: label, state: 'down' }) === 1
    }, 'the replica is down')
    assert.ok(!metrics.has('civic_db_replica_lag_seconds', { replica: label }))
    const down = metrics
    const response = await fetch(`${base}/api/questions/?page_size=5`, { headers: { 'cache-control': 'no-cache' } })
    assert.equal(response.status, 200)
    await response.arrayBuffer()
    await until(async () => {
      metrics = await scrape(metricsUrl)
      return (
        metrics.sum('civic_db_read_statements_total', { target: 'primary' }) >
        down.sum('civic_db_read_statements_total', { target: 'primary' })
      )
    }, 'reads counted on the primary')
    assert.equal(
      metrics.sum('civic_db_read_statements_total', { target: 'replica' }),
      down.sum('civic_db_read_statements_total', { target: 'replica' }),
    )
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    await server.exited
    await cluster.stop()
  }
})
