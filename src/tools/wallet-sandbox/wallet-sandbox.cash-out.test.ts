// The sandbox's rules on how a bet ends, over real HTTP on 127.0.0.1 with both stores: a cash-out
// is final (nothing more is paid on the bet's outcome after it), a settled bet is not cashed out,
// and a confirm of nothing is refused (wagerline releases such a bet with refundBet). A schema made
// by an earlier sandbox learns from its transactions which of its bets were settled or cashed out.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { startWalletSandbox } from './index.ts';
import { bearer, betBodies as bodies, call, describeOnEachStore, TEST_CLIENT as CC } from '../../../test/helpers/sandbox-http.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ empty: true });
});
after(() => db.drop());

describeOnEachStore('wallet sandbox cash-outs and settlements', () => db, (s) => {
  // wagerline closes a cashed-out bet for good (docs/bets-admin.md): an amended result sends
  // nothing for it, and it is never cashed out again. Each of these would pay the bet twice.
  test('after a cash-out, settleBet, a second cash-out and a partial refund are BET_STATE_CONFLICT; its replay and an adjustment still succeed', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    const cashOut = b.credit(12, 'cashout');
    const first = await call(s.sandbox, s.auth, 'credit', cashOut);
    assert.equal(first.status, 200);
    const replay = await call(s.sandbox, s.auth, 'credit', cashOut);
    assert.deepEqual([replay.status, replay.text], [200, first.text], 'the same transactionId and body is a replay, not a second cash-out');
    const refused = [
      ['settleBet', b.settleBet(3)], ['settleBet', b.settleBet(0)],
      ['credit', b.credit(12, 'cashout')], ['credit', b.credit(1, 'betpartialrefund')],
    ] as const;
    for (const [op, body] of refused) {
      const res = await call(s.sandbox, s.auth, op, body);
      assert.deepEqual([res.status, res.json.code, op, body.amount], [409, 'BET_STATE_CONFLICT', op, body.amount]);
      assert.match(res.json.message, new RegExp(`bet ${b.betId} was cashed out`));
    }
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(2, 'adjustreversetransaction'))).status, 200, 'an operator may still adjust it');
    // −5 (the stake) +12 (the cash-out, once) +2 (the adjustment).
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1009.00', bonus: '0.00', reserved: '0.00' });
    const effects = await s.sandbox.effects();
    assert.deepEqual(refused.map(([, body]) => effects.get(body.transactionId)), [undefined, undefined, undefined, undefined]);
    assert.equal(effects.get(cashOut.transactionId), 1);
  });

  // A cashed-out bet is final in wagerline (docs/bets-admin.md): it is neither cancelled nor
  // re-settled, so its cash-out is never taken back and its stake never refunded after it.
  test('after a cash-out, a debit (either code) and a refundBet are BET_STATE_CONFLICT, before the amount or the winnings are looked at', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(12, 'cashout'))).status, 200);
    const refused = [
      ['debit', b.debit(12, 'deductbetwin')], ['debit', b.debit(1, 'betwincancelled')], ['debit', b.debit(12.01, 'deductbetwin')],
      ['refundBet', b.refundBet(5)], ['refundBet', b.refundBet(1)],
    ] as const;
    for (const [op, body] of refused) {
      const res = await call(s.sandbox, s.auth, op, body);
      assert.deepEqual([res.status, res.json.code, op, body.amount], [409, 'BET_STATE_CONFLICT', op, body.amount]);
      assert.match(res.json.message, new RegExp(`bet ${b.betId} was cashed out: a cash-out is final, the bet is not (debited|refunded) after it`));
    }
    // −5 (the stake) +12 (the cash-out): nothing taken back, nothing refunded.
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1007.00', bonus: '0.00', reserved: '0.00' });
    const effects = await s.sandbox.effects();
    assert.deepEqual(refused.map(([, body]) => effects.get(body.transactionId)), refused.map(() => undefined));
  });

  // Every credit wagerline sends moves money: a cash-out value, an adjustment and a refunded part
  // of the stake are each above 0 (docs/bets-admin.md, docs/settlement.md).
  test('a credit of 0.00, of each transactionType, is a 400 VALIDATION_ERROR and moves nothing', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    const zeros = ['cashout', 'adjustreversetransaction', 'betpartialrefund'].map((type) => b.credit(0, type));
    for (const body of zeros) {
      const res = await call(s.sandbox, s.auth, 'credit', body);
      assert.deepEqual([res.status, res.json.code, body.transactionType], [400, 'VALIDATION_ERROR', body.transactionType]);
      assert.equal(res.json.message, `credit amount must be above 0: a credit ${body.transactionType} of 0.00 moves nothing`);
    }
    const effects = await s.sandbox.effects();
    assert.deepEqual(zeros.map((body) => effects.get(body.transactionId)), [undefined, undefined, undefined]);
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(3, 'cashout'))).status, 200, 'the bet is still open to a real cash-out');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '998.00', bonus: '0.00', reserved: '0.00' });
  });

  // Only an open bet is cashed out (docs/bets-admin.md); a settled one was paid by settleBet.
  test('a cash-out of a settled bet, a loser settled for 0.00 included, is BET_STATE_CONFLICT; an amended result still pays', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(5));
    assert.equal((await call(s.sandbox, s.auth, 'settleBet', b.settleBet(0))).status, 200);
    const late = await call(s.sandbox, s.auth, 'credit', b.credit(3, 'cashout'));
    assert.deepEqual([late.status, late.json.code], [409, 'BET_STATE_CONFLICT']);
    assert.match(late.json.message, /was settled: a settled bet is not cashed out/);
    assert.equal((await call(s.sandbox, s.auth, 'settleBet', b.settleBet(4))).status, 200, 'a re-settlement pays the difference');
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(3, 'cashout'))).json.code, 'BET_STATE_CONFLICT');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '999.00', bonus: '0.00', reserved: '0.00' });
  });

  // wagerline sends refundBet of the whole reservation when nothing is accepted (docs/betting.md),
  // never a confirm of 0.00: such a confirm would leave a bet "taken" with no stake in play.
  test('a confirm of 0.00 is a 400 VALIDATION_ERROR (nothing accepted is released with refundBet), over HTTP and in seedBets', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    const none = await call(s.sandbox, s.auth, 'confirm', b.confirm(0));
    assert.deepEqual([none.status, none.json.code], [400, 'VALIDATION_ERROR']);
    assert.match(none.json.message, /confirm amount must be above 0.*refundBet/);
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', b.refundBet(5))).status, 200, 'the hold is still there to release');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    const seed = { betId: randomUUID(), userId: b.userId, bonusFlag: false, reserved: '1.00', confirmed: '0.00',
      reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() };
    await assert.rejects(s.sandbox.seedBets([seed]), /VALIDATION_ERROR/);
  });
});

test('a PostgreSQL schema of an earlier sandbox (bets without closed_by) is brought up to date from its transactions', async () => {
  const cashedOut = bodies();
  const settled = bodies(cashedOut.userId);
  const open = bodies(cashedOut.userId);
  const row = (b: typeof cashedOut, settledCents: number, winnings: number) => `('${b.betId}', '${b.userId}', false, 'confirmed', 0, 500, 0, ${settledCents}, ${winnings})`;
  const tx = (b: typeof cashedOut, op: string, type: string | null) =>
    `('${randomUUID()}', '${op}', '${b.betId}', '${b.userId}', false, 0, ${type ? `'${type}'` : 'NULL'}, 'fp', 200, '{}', '{}', 1, now())`;
  await db.pool.query(`
    CREATE SCHEMA before_close;
    CREATE TABLE before_close.bets (bet_id text PRIMARY KEY, user_id text NOT NULL, bonus boolean NOT NULL, status text NOT NULL,
      held bigint NOT NULL, confirmed bigint NOT NULL, refunded bigint NOT NULL, settled bigint NOT NULL, winnings bigint NOT NULL);
    CREATE TABLE before_close.transactions (transaction_id text PRIMARY KEY, op text NOT NULL, bet_id text NOT NULL, user_id text NOT NULL,
      bonus_flag boolean NOT NULL, amount bigint NOT NULL, transaction_type text, fingerprint text NOT NULL, status integer NOT NULL,
      body json NOT NULL, effect jsonb NOT NULL, effect_count integer NOT NULL, created_at timestamptz NOT NULL);
    INSERT INTO before_close.bets VALUES ${row(cashedOut, 0, 1200)}, ${row(settled, 0, 0)}, ${row(open, 0, 0)};
    INSERT INTO before_close.transactions VALUES ${tx(cashedOut, 'confirm', null)}, ${tx(cashedOut, 'credit', 'cashout')},
      ${tx(settled, 'settleBet', null)}, ${tx(open, 'credit', 'adjustreversetransaction')};`);
  const sandbox = await startWalletSandbox({ auth: CC, store: { kind: 'postgres', pool: db.pool, schema: 'before_close' } });
  try {
    const auth = await bearer(sandbox);
    assert.equal((await call(sandbox, auth, 'settleBet', cashedOut.settleBet(1))).json.code, 'BET_STATE_CONFLICT');
    assert.equal((await call(sandbox, auth, 'credit', settled.credit(1, 'cashout'))).json.code, 'BET_STATE_CONFLICT');
    assert.equal((await call(sandbox, auth, 'settleBet', settled.settleBet(1))).status, 200);
    assert.equal((await call(sandbox, auth, 'credit', open.credit(1, 'cashout'))).status, 200, 'an adjustment closes nothing');
  } finally {
    await sandbox.close();
  }
  const again = await startWalletSandbox({ auth: CC, store: { kind: 'postgres', pool: db.pool, schema: 'before_close' } });
  await again.close(); // a second start on the updated schema changes nothing and does not fail
  const { rows } = await db.pool.query('SELECT bet_id, closed_by FROM before_close.bets ORDER BY closed_by');
  assert.deepEqual(new Map(rows.map((r) => [r.bet_id, r.closed_by])),
    new Map([[cashedOut.betId, 'cashout'], [settled.betId, 'settleBet'], [open.betId, 'cashout']]));
});

test('a bet an earlier sandbox confirmed for 0.00 is not settled, and the refusal says nothing of its stake was accepted', async () => {
  const b = bodies();
  const sandbox = await startWalletSandbox({ auth: CC, store: { kind: 'postgres', pool: db.pool, schema: 'zero_confirmed' } });
  try {
    // The row a confirm of 0.00 left before it was refused: nothing held, nothing confirmed.
    await db.pool.query(`INSERT INTO zero_confirmed.bets VALUES ($1, $2, false, 'confirmed', 0, 0, 0, 0, 0, NULL)`, [b.betId, b.userId]);
    const auth = await bearer(sandbox);
    const settle = await call(sandbox, auth, 'settleBet', b.settleBet(5));
    assert.deepEqual([settle.status, settle.json.code], [409, 'BET_STATE_CONFLICT']);
    assert.match(settle.json.message, /nothing of its stake was accepted, nothing is left to settle/);
  } finally {
    await sandbox.close();
  }
});
