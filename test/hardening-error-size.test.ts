// Error answers never serialise a client's value whole: a deeply nested value is named by its
// kind (no stack overflow), and a multi-megabyte invalid upload gets a small 400.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx);
});
after(() => ctx.close());

function upload(payload: string) {
  return ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', payload, headers: { 'content-type': 'application/json', ...client.auth } });
}
async function stored(): Promise<number> {
  const { rows } = await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM reported_bets');
  return rows[0]!.n;
}

test('a deeply nested currency is a 400 on its path, not a stack overflow', async () => {
  // The built bet without its own currency: a key twice would be refused before validation.
  const { currency: _, ...rest } = buildBet({ id: 'deep-1' });
  const bet = JSON.stringify(rest).slice(0, -1) + `,"currency":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const res = await upload(`{"meeting_id":1,"race_number":1,"bets":[${bet}]}`);
  assert.equal(res.statusCode, 400, res.body);
  const problem = res.json();
  assert.equal(problem.code, 'validation_failed');
  assert.deepEqual(problem.errors.map((e: { field: string }) => e.field), ['bets/0/currency']);
  assert.match(problem.errors[0].message, /ISO 4217.*an array/);
  assert.equal(await stored(), 0);
});

test('a multi-megabyte invalid upload gets a 400 of a few kilobytes', async () => {
  const long = 'x'.repeat(1000);
  const bets = Array.from({ length: 1000 }, (_, i) => buildBet({ id: `${long}${i}`.slice(-64), user_state: long, source: long, currency: long }));
  const payload = JSON.stringify({ meeting_id: 1, race_number: 1, bets });
  assert.ok(payload.length > 3_000_000);
  const res = await upload(payload);
  assert.equal(res.statusCode, 400);
  assert.ok(res.body.length < 16 * 1024, `${res.body.length} bytes`);
  const problem = res.json();
  assert.equal(problem.code, 'validation_failed');
  assert.ok(problem.errors.length > 0 && problem.errors.length <= 50);
  assert.equal(problem.errors.length + problem.errors_omitted, 3000);
  for (const e of problem.errors) assert.ok(!e.message.includes('x'.repeat(41)), e.message);
  assert.equal(await stored(), 0);
});
