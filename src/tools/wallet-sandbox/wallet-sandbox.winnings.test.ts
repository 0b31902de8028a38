// The sandbox's rules on a bet's winnings and stake, over real HTTP on 127.0.0.1 with both stores:
// a debit takes back no more than the bet won; a stake comes back (refundBet) only once the
// winnings paid on it are taken back, and a partial refund goes where the stake came from.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { startWalletSandbox } from './index.ts';
import { bearer, betBodies as bodies, call, describeOnEachStore, TEST_CLIENT as CC } from '../../../test/helpers/sandbox-http.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ empty: true });
});
after(() => db.drop());

describeOnEachStore('wallet sandbox winnings and stakes', () => db, (s) => {
  // Both debit codes reverse winnings of the bet (spec 2.4): what its settleBets paid, less what
  // was already taken back. More would take the user's own money. (A cashed-out bet is final: no
  // debit at all, wallet-sandbox.cash-out.test.ts.)
  test('a debit takes back at most the winnings paid on the bet and not yet taken back: DEBIT_EXCEEDS_WINNINGS', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    const none = await call(s.sandbox, s.auth, 'debit', b.debit(0.01, 'deductbetwin'));
    assert.deepEqual([none.status, none.json.code], [400, 'DEBIT_EXCEEDS_WINNINGS'], 'a bet not yet settled was paid nothing');
    await call(s.sandbox, s.auth, 'settleBet', b.settleBet(12));
    assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(4, 'deductbetwin'))).status, 200);
    const over = await call(s.sandbox, s.auth, 'debit', b.debit(8.01, 'betwincancelled'));
    assert.deepEqual([over.status, over.json.code], [400, 'DEBIT_EXCEEDS_WINNINGS']);
    assert.match(over.json.message, /8\.01 is more than the 8\.00 of winnings/);
    assert.equal((await call(s.sandbox, s.auth, 'settleBet', b.settleBet(3))).status, 200, 'a re-settlement pays the difference');
    assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(11, 'betwincancelled'))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(0.01, 'betwincancelled'))).json.code, 'DEBIT_EXCEEDS_WINNINGS');
    // −5 (the stake) +12 +3 (winnings) −4 −11 (taken back).
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '995.00', bonus: '0.00', reserved: '0.00' });
  });

  // A winner refunded with its winnings still paid would have both: its stake back and the
  // winnings of a bet that no longer stands. wagerline takes them back (debit) first.
  test('refundBet of a confirmed bet whose winnings are paid and not taken back is BET_STATE_CONFLICT', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    await call(s.sandbox, s.auth, 'settleBet', b.settleBet(12));
    const early = await call(s.sandbox, s.auth, 'refundBet', b.refundBet(5));
    assert.deepEqual([early.status, early.json.code], [409, 'BET_STATE_CONFLICT']);
    assert.match(early.json.message, /12\.00 of winnings paid and not taken back/);
    assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(10, 'betwincancelled'))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', b.refundBet(5))).json.code, 'BET_STATE_CONFLICT', '2.00 still paid');
    assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(2, 'betwincancelled'))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', b.refundBet(5))).status, 200);
    // A loser (settled for 0.00) has nothing to take back: its stake may come back at once.
    const loser = bodies(b.userId);
    await call(s.sandbox, s.auth, 'reserve', loser.reserve(3));
    await call(s.sandbox, s.auth, 'confirm', loser.confirm(3));
    await call(s.sandbox, s.auth, 'settleBet', loser.settleBet(0));
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', loser.refundBet(3))).status, 200);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
  });

  // A partial refund returns part of the stake, as refundBet does: to the balance the stake came
  // from. With another bonusFlag a bonus stake would come back as cash (or a cash one as bonus).
  test('credit betpartialrefund with a bonusFlag other than the reserve\'s is BONUS_FLAG_MISMATCH', async () => {
    const b = bodies();
    await s.sandbox.seedUser(b.userId, { cash: '100.00', bonus: '20.00' });
    await call(s.sandbox, s.auth, 'reserve', b.reserve(10, true));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(10, true));
    const asCash = await call(s.sandbox, s.auth, 'credit', b.credit(4, 'betpartialrefund', false));
    assert.deepEqual([asCash.status, asCash.json.code], [400, 'BONUS_FLAG_MISMATCH']);
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(4, 'betpartialrefund', true))).status, 200);
    const cashBet = bodies(b.userId);
    await call(s.sandbox, s.auth, 'reserve', cashBet.reserve(10));
    await call(s.sandbox, s.auth, 'confirm', cashBet.confirm(10));
    assert.equal((await call(s.sandbox, s.auth, 'credit', cashBet.credit(4, 'betpartialrefund', true))).json.code, 'BONUS_FLAG_MISMATCH');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '90.00', bonus: '14.00', reserved: '0.00' });
  });
});

test('a PostgreSQL schema of an earlier sandbox (bets without winnings) is brought up to date: its settled bets can be debited', async () => {
  const b = bodies();
  await db.pool.query(`
    CREATE SCHEMA old_sandbox;
    CREATE TABLE old_sandbox.bets (bet_id text PRIMARY KEY, user_id text NOT NULL, bonus boolean NOT NULL, status text NOT NULL,
      held bigint NOT NULL, confirmed bigint NOT NULL, refunded bigint NOT NULL, settled bigint NOT NULL);
    INSERT INTO old_sandbox.bets VALUES ('${b.betId}', '${b.userId}', false, 'confirmed', 0, 500, 0, 1200);`);
  const sandbox = await startWalletSandbox({ auth: CC, store: { kind: 'postgres', pool: db.pool, schema: 'old_sandbox' } });
  try {
    const auth = await bearer(sandbox);
    assert.equal((await call(sandbox, auth, 'debit', b.debit(12.01, 'deductbetwin'))).json.code, 'DEBIT_EXCEEDS_WINNINGS');
    assert.equal((await call(sandbox, auth, 'debit', b.debit(12, 'deductbetwin'))).status, 200);
    assert.deepEqual(await sandbox.balances(b.userId), { cash: '988.00', bonus: '0.00', reserved: '0.00' });
  } finally {
    await sandbox.close();
  }
});
