// serve's pool bounds the wait for each statement's answer (WAGERLINE_DB_QUERY_TIMEOUT_MS): a
// request whose statement is not answered in time (a host fallen silent under an open connection;
// here, a statement waiting on a lock the test holds) is 503 service_unavailable, not a 500, and
// the connection is dropped so the next request is served.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { createServices, type Services } from '../src/services.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let pool: Pool;
let services: Services;
let app: FastifyInstance;
before(async () => {
  ctx = await createTestApp();
  // The app under test runs on a pool of its own with a short bound; ctx's pool holds the lock.
  pool = createPool(ctx.db.url, 2, { queryTimeoutMs: 300 });
  services = createServices({ config: ctx.config, db: pool, box: ctx.box, clock: ctx.clock });
  await services.tokens.refresh();
  app = await buildApp({ config: ctx.config, db: pool, services, logger: false });
});
after(async () => {
  await app.close();
  await services.close();
  await pool.end();
  await ctx.close();
});

test('REST: a read not answered within the query timeout is 503 service_unavailable; the next one is served', { timeout: 30_000 }, async () => {
  const { auth } = await seedClient(ctx);
  const read = () => app.inject({ method: 'GET', url: '/public/bets?meeting_id=1&race_number=1', headers: auth });
  const holder = await ctx.db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE reported_bets IN ACCESS EXCLUSIVE MODE');
    const res = await read();
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().code, 'service_unavailable');
    assert.equal(res.json().detail, 'the database cannot be reached; try again shortly');
    assert.doesNotMatch(res.body, /Query read timeout|SELECT|at .*\.ts/);
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
  }
  assert.equal((await read()).statusCode, 200, 'the timed-out connection was dropped, not reused');
});
