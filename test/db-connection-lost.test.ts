// A request whose database connection is lost under it (the server ends the session: a failover,
// a restart, an administrator) is answered 503 service_unavailable, as a failed connect is, on
// every endpoint kind: REST, the frontend's /graphql and the back-office's — not a 500 "internal
// error" logged with a stack. Real PostgreSQL: the app's query waits on a lock the test holds,
// and the test ends that backend with pg_terminate_backend.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { connectionLost } from '../src/db/pool.ts';
import { toAppError } from '../src/http/problem.ts';
import { seedClient } from './helpers/app.ts';
import { backofficeClient, GET_BETS, post } from './helpers/backoffice.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';

let frontend: JwtFrontend;
before(async () => {
  frontend = await jwtFrontend('Lost');
});
after(() => frontend.close());

/**
 * Runs `request` while `table` is locked by the test, ends the app's backend once it waits on that
 * lock, then releases the lock; returns the request's answer.
 */
async function withBackendEnded<T>(table: string, request: () => Promise<T>): Promise<T> {
  const holder = await frontend.ctx.db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const answer = request();
    // Looked for outside the holder's transaction: pg_stat_activity is read once per transaction.
    for (let ended = 0, tries = 0; ended === 0; tries++) {
      if (tries === 250) throw new Error(`no backend of the app waited on ${table} within 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows } = await frontend.ctx.db.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`, [(holder as unknown as { processID: number }).processID]);
      ended = rows.length;
    }
    await holder.query('ROLLBACK');
    return await answer;
  } finally {
    holder.release();
  }
}

test('REST: a read whose connection is ended is 503 service_unavailable, and the next one is served', async () => {
  const { auth } = await seedClient(frontend.ctx);
  const read = () => frontend.ctx.app.inject({ method: 'GET', url: '/public/bets?meeting_id=1&race_number=1', headers: auth });
  const res = await withBackendEnded('reported_bets', read);
  assert.equal(res.statusCode, 503, res.body);
  assert.equal(res.json().code, 'service_unavailable');
  assert.doesNotMatch(res.body, /terminat|SELECT|at .*\.ts/);
  assert.equal((await read()).statusCode, 200, 'the pool opens a new connection');
});

test('frontend /graphql: myBets whose connection is ended is SERVICE_UNAVAILABLE', async () => {
  const token = await frontend.idp.token(randomUUID(), { now: frontend.ctx.clock() });
  const res = await withBackendEnded('bets', () => fetch(`${frontend.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': frontend.tenantId, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ myBets(first: 5) { bets { id } } }' }),
  }));
  const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
  assert.deepEqual(body.errors.map((e) => e.extensions.code), ['SERVICE_UNAVAILABLE'], JSON.stringify(body));
  assert.match(body.errors[0]!.message, /database cannot be reached; try again shortly/);
});

test('back-office: getBets whose connection is ended is SERVICE_UNAVAILABLE', async () => {
  const client = await backofficeClient(frontend.ctx);
  const { body } = await withBackendEnded('bets', () => post(frontend.ctx, client.headers, GET_BETS, { input: { tenant: { ids: [client.tenantId] } } }, 'GetBets'));
  assert.deepEqual(body.errors!.map((e: { extensions: { code: string } }) => e.extensions.code), ['SERVICE_UNAVAILABLE'], JSON.stringify(body));
});

test('what is a lost connection: the driver\'s own errors of an ended session and a closed socket; a refused statement is not', async () => {
  const client = new pg.Client({ connectionString: frontend.ctx.db.url });
  client.on('error', () => undefined);
  await client.connect();
  const { rows: [{ pid }] } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  await frontend.ctx.db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  const ended = await client.query('SELECT 1').then(() => undefined, (error: unknown) => error);
  assert.ok(ended, 'the ended session refuses the query');
  assert.equal(toAppError(ended).status, 503, String(ended));
  const refused = await frontend.ctx.db.pool.query('SELECT 1/0').then(() => undefined, (error: unknown) => error);
  assert.equal(connectionLost(refused), undefined, 'division by zero is not a lost connection');
  assert.equal(toAppError(refused).status, 500);
  // pg's message when the socket closes under a query (it carries no code and no severity).
  assert.equal(connectionLost(new Error('Connection terminated unexpectedly'))?.status, 503);
  // pg's message for a query sent once it has read the close: which of the two the ended session's
  // query above meets depends on timing, so both are held here.
  assert.equal(connectionLost(new Error('Client has encountered a connection error and is not queryable'))?.status, 503);
  // The socket's error when the system gives up on the connection: keepalive probes or
  // retransmissions unanswered (a host fallen silent, WAGERLINE_DB_KEEPALIVE_MS).
  const timedOut = Object.assign(new Error('read ETIMEDOUT'), { code: 'ETIMEDOUT', errno: -110, syscall: 'read' });
  assert.equal(toAppError(timedOut).status, 503);
  await client.end().catch(() => undefined);
});
