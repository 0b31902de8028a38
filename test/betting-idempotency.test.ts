// Idempotent placement, property-tested: for any sequence of placeBet calls drawn from a few keys
// and bodies, sent in any order and partly at once, each (user, key) makes exactly one bet, its
// stake is reserved on the wallet exactly once, every replay answers that same bet, and a key
// reused with another body is refused without a wallet call. Real PostgreSQL and the reference
// wallet on 127.0.0.1.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../src/errors.ts';
import { bettingFixture } from './betting-fixture.ts';
import { fuzzRuns } from './helpers/fuzz.ts';

const MEETING = 770001;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
});
after(() => f.close());

/** Two bodies per key: body 0 and body 1 differ only in the stake. */
const body = (key: string, variant: number) => ({
  idempotencyKey: key, type: 'WIN', stake: 1 + variant, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }],
});

test('any order of the same keys makes each bet once, with one reserve; another body under a key is refused', async () => {
  const call = fc.record({ key: fc.integer({ min: 0, max: 2 }), variant: fc.integer({ min: 0, max: 1 }), together: fc.boolean() });
  await fc.assert(fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
    const userId = randomUUID();
    const keys = ['a', 'b', 'c'].map((k) => `${k}-${randomUUID()}`);
    const answers: Array<{ key: number; variant: number; id?: string; code?: string }> = [];
    const send = async (c: { key: number; variant: number }) => {
      try {
        answers.push({ ...c, id: (await f.services.betting.placeBet(f.user(userId), body(keys[c.key]!, c.variant))).id });
      } catch (error) {
        answers.push({ ...c, code: error instanceof AppError ? error.code : String(error) });
      }
    };
    // Calls marked `together` go at once with the one before them; the others one after another.
    for (let i = 0; i < calls.length; i++) {
      const batch = [calls[i]!];
      while (calls[i + 1]?.together) batch.push(calls[++i]!);
      await Promise.all(batch.map(send));
    }
    const { rows } = await f.db.pool.query<{ idempotency_key: string; bet_id: string; stake: string }>(
      'SELECT idempotency_key, bet_id, stake FROM bets WHERE tenant_id = $1 AND user_id = $2', [f.tenantId, userId]);
    const usedKeys = new Set(calls.map((c) => keys[c.key]));
    assert.equal(rows.length, usedKeys.size, 'one bet per key used');
    // Calls sent at once share one insert, which skips a key taken in it: no leg or history row for
    // a bet it did not store (they have no foreign key to bets: migration 0016).
    const { rows: [orphans] } = await f.db.pool.query<{ legs: number; history: number }>(
      `SELECT (SELECT count(*)::int FROM bet_legs l WHERE l.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM bets b WHERE b.tenant_id = l.tenant_id AND b.bet_id = l.bet_id)) AS legs,
              (SELECT count(*)::int FROM bet_history h WHERE h.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM bets b WHERE b.tenant_id = h.tenant_id AND b.bet_id = h.bet_id)) AS history`,
      [f.tenantId]);
    assert.deepEqual(orphans, { legs: 0, history: 0 }, 'every leg and history entry has its bet');
    for (const row of rows) {
      const index = keys.indexOf(row.idempotency_key);
      const mine = answers.filter((a) => a.key === index);
      const winner = mine.find((a) => a.id === row.bet_id)!;
      assert.ok(winner, 'some call answered the stored bet');
      for (const a of mine) {
        if (a.variant === winner.variant) assert.equal(a.id, row.bet_id, 'a replay answers the same bet');
        else assert.equal(a.code, 'idempotency_conflict', 'another body under the key is refused');
      }
      const reserves = f.sandbox.requests().filter((r) => r.op === 'reserve' && (r.body as { betId?: string }).betId === row.bet_id);
      assert.equal(reserves.length, 1, 'the stake is reserved once');
    }
  }), fuzzRuns(25));
});

test('a key holding an unpaired surrogate is refused: stored, it would become U+FFFD and two keys one', async () => {
  const user = f.user(randomUUID());
  for (const key of ['k\ud800', 'k\udc01x']) {
    await assert.rejects(f.services.betting.placeBet(user, body(key, 0)),
      (e: unknown) => e instanceof AppError && e.code === 'bad_request' && /without control characters or unpaired surrogates/.test(e.message));
  }
  assert.equal((await f.services.betting.placeBet(user, body('k😀', 0))).status, 'ACCEPTED');
});

test('a replay listing the runners of a position in another order is the same bet: answered with it, never reserved again', async () => {
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING + 1, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['exacta'],
      runners: [1, 2, 3, 4].map((n) => ({ number: n, name: `R${n}` })) }],
  });
  const user = f.user(randomUUID());
  const exacta = (selections: number[][], boxed = false) => ({
    idempotencyKey: `order-${boxed}`, type: 'EXACTA', boxed, stake: 6, legs: [{ meetingId: MEETING + 1, raceNumber: 1, selections }],
  });
  for (const [first, again, boxed] of [[[[1, 2, 3]], [[3, 1, 2]], true], [[[4], [1, 2, 3]], [[4], [3, 2, 1]], false]] as const) {
    const placed = await f.services.betting.placeBet(user, exacta(first.map((p) => [...p]), boxed));
    const replayed = await f.services.betting.placeBet(user, exacta(again.map((p) => [...p]), boxed));
    assert.deepEqual([replayed.id, replayed.status, replayed.legs[0]!.selections], [placed.id, 'ACCEPTED', first], 'the first bet, as placed');
    assert.equal(f.sandbox.requests().filter((r) => r.op === 'reserve' && (r.body as { betId?: string }).betId === placed.id).length, 1);
  }
  // The positions themselves are not a set: the runners moved to another position are another bet.
  await assert.rejects(f.services.betting.placeBet(user, exacta([[1, 2, 3], [4]])),
    (e: unknown) => e instanceof AppError && e.code === 'idempotency_conflict');
  const { rows } = await f.db.pool.query('SELECT 1 FROM bets WHERE tenant_id = $1 AND user_id = $2', [f.tenantId, user.userId]);
  assert.equal(rows.length, 2, 'one bet a key');
});
