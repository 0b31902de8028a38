// Storms of uploads of one race: N concurrent uploads of the same 1,000 bets, each with its own
// amounts. Uploads of one race queue on a lock (docs/upload.md), so every request answers, every
// upload becomes exactly one revision of every bet, and the rows end as the last upload committed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBatch } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

const BETS = 1000;
let ctx: TestContext;
let auth: Record<string, string>;
before(async () => {
  ctx = await createTestApp();
  auth = (await seedClient(ctx, { agencies: ['TAB'] })).auth;
});
after(() => ctx.close());

/** Upload k of a storm: the same bets, every amount 10 + k (so each upload changes every bet). */
function stormBody(meetingId: number, k: number): string {
  const batch = buildBatch({ meetingId, raceNumber: 1, count: BETS, seed: meetingId, idPrefix: `s${meetingId}` });
  for (const bet of batch.bets) Object.assign(bet, { amount: 10 + k, payout: 0, net_result: 10 + k, leg: 1, type: 'win', runner_number: 1, exotics_selection: undefined });
  return JSON.stringify(batch);
}

async function storm(meetingId: number, n: number) {
  const bodies = Array.from({ length: n }, (_, k) => stormBody(meetingId, k));
  const answers = await Promise.all(bodies.map((payload) => ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', payload, headers: { ...auth, 'content-type': 'application/json' },
  })));
  return answers.map((r) => ({ status: r.statusCode, json: r.json() }));
}

/** Per revision number: the distinct amounts the bets had (one amount = one whole upload). */
async function amountsByRevision(meetingId: number): Promise<Map<number, string[]>> {
  const { rows } = await ctx.db.pool.query<{ revision: number; amounts: string[]; bets: number }>(
    `SELECT revision, array_agg(DISTINCT trim_scale(amount)::text) AS amounts, count(*)::int AS bets
     FROM reported_bet_history WHERE meeting_id = $1 GROUP BY revision ORDER BY revision`, [meetingId]);
  for (const r of rows) assert.equal(r.bets, BETS, `revision ${r.revision} covers every bet once`);
  return new Map(rows.map((r) => [r.revision, r.amounts]));
}

async function assertStorm(meetingId: number, n: number): Promise<void> {
  const answers = await storm(meetingId, n);
  for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.json).slice(0, 300));
  assert.equal(answers.filter((a) => a.json.created === BETS).length, 1, 'exactly one upload created the bets');
  assert.equal(answers.filter((a) => a.json.updated === BETS).length, n - 1, 'every other upload changed every bet');

  const byRevision = await amountsByRevision(meetingId);
  assert.deepEqual([...byRevision.keys()], Array.from({ length: n }, (_, i) => i + 1), 'revisions 1..n, no gaps');
  for (const [revision, amounts] of byRevision) assert.equal(amounts.length, 1, `revision ${revision} is one whole upload`);
  const order = [...byRevision.values()].map((a) => Number(a[0]));
  assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: n }, (_, k) => 10 + k), 'each upload recorded exactly once');

  // The current rows are the last upload committed: the highest revision, with its amounts.
  const { rows: [current] } = await ctx.db.pool.query(
    `SELECT count(*)::int AS bets, min(revision) AS min_rev, max(revision) AS max_rev,
            array_agg(DISTINCT trim_scale(amount)::text) AS amounts FROM reported_bets WHERE meeting_id = $1`, [meetingId]);
  assert.deepEqual(current, { bets: BETS, min_rev: n, max_rev: n, amounts: [String(order[n - 1])] });
}

test('8 concurrent uploads of one race all answer 200 and apply one after another', async () => {
  await assertStorm(7001, 8);
});

test('32 concurrent uploads of one race all answer 200 and apply one after another', async () => {
  await assertStorm(7002, 32);
});
