// Concurrent uploads of overlapping batches over real HTTP: no duplicates, no failures, and the
// revision history stays complete (every update leaves exactly one revision behind).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
let base: string;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx, { agencies: ['TAB'] });
  base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
});
after(() => ctx.close());

const STATUSES = ['Unresulted', 'Pending', 'Paid', 'Cancelled', 'PartialRefund', 'FullRefund'];

/** Batch k covers ids [k*100, k*100+300): each id is in three batches, each with its own content. */
function batch(k: number, round: number) {
  const bets = Array.from({ length: 300 }, (_, i) => {
    const n = k * 100 + i;
    // Shuffle the order so that batches present shared ids in different orders.
    return buildBet({ id: `c-${n}`, status: STATUSES[(k + round) % STATUSES.length], amount: 10 + k, net_result: null });
  }).sort(() => Math.random() - 0.5);
  return { meeting_id: 3001, race_number: 1, bets };
}

async function send(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/public/uploadRaceV2`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...client.auth },
  });
  return { status: res.status, json: await res.json() };
}

test('overlapping batches sent at once never duplicate and never fail', async () => {
  let created = 0;
  let updated = 0;
  for (let round = 0; round < 4; round++) {
    const results = await Promise.all(Array.from({ length: 8 }, (_, k) => send(batch(k, round))));
    for (const r of results) {
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.json.received, 300);
      created += r.json.created;
      updated += r.json.updated;
    }
  }
  const { rows: [stats] } = await ctx.db.pool.query(
    `SELECT count(*)::int AS bets, count(DISTINCT bet_id)::int AS ids, sum(revision - 1)::int AS superseded
     FROM reported_bets WHERE meeting_id = 3001`);
  // Ids 0..999 (batch 7 reaches 999).
  assert.equal(stats.bets, 1000);
  assert.equal(stats.ids, 1000);
  assert.equal(created, 1000);
  const { rows: [revs] } = await ctx.db.pool.query(
    `SELECT count(*)::int AS n, count(DISTINCT (bet_id, revision))::int AS distinct_revs FROM reported_bet_revisions WHERE meeting_id = 3001`);
  assert.equal(revs.n, updated, 'one revision per update');
  assert.equal(revs.n, revs.distinct_revs);
  assert.equal(stats.superseded, updated, 'revision numbers count the updates');
  assert.ok(updated > 1000, `expected many updates, got ${updated}`);
  // Each bet's history is contiguous: revisions 1..n-1 stored, n current.
  const { rows: gaps } = await ctx.db.pool.query(
    `SELECT b.bet_id FROM reported_bets b
     WHERE b.meeting_id = 3001 AND (SELECT count(*) FROM reported_bet_revisions r
       WHERE r.tenant_id = b.tenant_id AND r.source = b.source AND r.bet_id = b.bet_id AND r.leg = b.leg) <> b.revision - 1`);
  assert.deepEqual(gaps, []);
});

test('the same batch sent concurrently many times creates each bet once', async () => {
  const body = { meeting_id: 3002, race_number: 2, bets: Array.from({ length: 500 }, (_, i) => buildBet({ id: `same-${i}` })) };
  const results = await Promise.all(Array.from({ length: 6 }, () => send(body)));
  assert.ok(results.every((r) => r.status === 200));
  assert.equal(results.reduce((sum, r) => sum + r.json.created, 0), 500);
  assert.equal(results.reduce((sum, r) => sum + r.json.updated, 0), 0);
  assert.equal(results.reduce((sum, r) => sum + r.json.unchanged, 0), 2500);
});
