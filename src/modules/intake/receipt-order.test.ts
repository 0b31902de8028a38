// Two uploads of one race queue for its lock; the one received later may get it first. The version
// received first must then not replace the later one (docs/upload.md, "Concurrent uploads").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { lockRace } from './intake.queries.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  ctx.clock.set(new Date('2024-06-01T10:00:00+10:00'));
  client = await seedClient(ctx, { agencies: ['TAB'] });
});
after(() => ctx.close());

const upload = (bets: Record<string, unknown>[]) => ctx.app.inject({
  method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: 600, race_number: 1, bets }),
  headers: { 'content-type': 'application/json', ...client.auth },
});

/** Resolves once `n` sessions wait for an advisory lock (the race's). */
async function waiting(n: number): Promise<void> {
  for (;;) {
    const { rows } = await ctx.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    if (rows[0]!.n >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a version received earlier but stored later does not replace the later one', async () => {
  const bet = { id: 'in-order', time: '2024-06-01T09:00:00+10:00', amount: 10, net_result: null };
  assert.equal((await upload([buildBet({ ...bet, status: 'Unresulted' })])).statusCode, 200);
  const holder = await ctx.db.pool.connect();
  let paid, stale;
  try {
    await holder.query('BEGIN');
    await lockRace(holder, client.tenant.tenant_id, 600, 1);
    ctx.clock.set(new Date('2024-06-01T18:00:05+10:00'));
    paid = upload([buildBet({ ...bet, status: 'Paid', payout: 35 })]); // received 18:00:05
    await waiting(1);
    ctx.clock.set(new Date('2024-06-01T18:00:00+10:00'));
    stale = upload([buildBet({ ...bet, status: 'Pending' })]); // received 18:00:00, queued behind it
    await waiting(2);
  } finally {
    await holder.query('COMMIT');
    holder.release();
  }
  assert.deepEqual((await paid!).json().updated, 1);
  assert.deepEqual([(await stale!).json().updated, (await stale!).json().unchanged], [0, 1]);
  const { rows } = await ctx.db.pool.query('SELECT status, revision, last_received_at FROM reported_bets WHERE bet_id = $1', ['in-order']);
  assert.deepEqual(rows.map((r) => [r.status, r.revision, r.last_received_at.toISOString()]), [['Paid', 2, '2024-06-01T08:00:05.000Z']]);
});
