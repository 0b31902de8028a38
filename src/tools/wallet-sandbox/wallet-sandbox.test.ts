// The reference wallet sandbox over real HTTP on 127.0.0.1, with both stores: balances after each
// call, idempotency, mismatches, concurrent duplicates, the rules of spec 2.4 and 3.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { betBodies as bodies, call, describeOnEachStore } from '../../../test/helpers/sandbox-http.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ empty: true });
});
after(() => db.drop());

describeOnEachStore('wallet sandbox', () => db, (s) => {
  test('reserve holds, a partial confirm takes the accepted amount and releases the rest, settleBet credits cash', async () => {
    const b = bodies();
    const reserve = await call(s.sandbox, s.auth, 'reserve', b.reserve(25.5));
    assert.equal(reserve.status, 200);
    assert.equal(reserve.json.success, true);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '974.50', bonus: '0.00', reserved: '25.50' });
    assert.equal((await call(s.sandbox, s.auth, 'confirm', b.confirm(20))).status, 200);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '980.00', bonus: '0.00', reserved: '0.00' });
    assert.equal((await call(s.sandbox, s.auth, 'settleBet', b.settleBet(45.1))).status, 200);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1025.10', bonus: '0.00', reserved: '0.00' });
    const res = await fetch(`${s.sandbox.url}/transactions?betId=${b.betId}`, { headers: s.auth });
    const listed = (await res.json()) as { transactions: Array<{ op: string; amount: string; effectCount: number }> };
    assert.deepEqual(listed.transactions.map((t) => [t.op, t.amount, t.effectCount]), [['reserve', '25.50', 1], ['confirm', '20.00', 1], ['settleBet', '45.10', 1]]);
  });

  test('refundBet releases a held reservation, or returns confirmed funds; never more than the bet', async () => {
    const held = bodies();
    await call(s.sandbox, s.auth, 'reserve', held.reserve(10));
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', held.refundBet(10))).status, 200);
    assert.deepEqual(await s.sandbox.balances(held.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    assert.equal((await call(s.sandbox, s.auth, 'confirm', held.confirm(10))).json.code, 'BET_STATE_CONFLICT');

    const taken = bodies();
    await call(s.sandbox, s.auth, 'reserve', taken.reserve(10));
    await call(s.sandbox, s.auth, 'confirm', taken.confirm(10));
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', taken.refundBet(4))).status, 200);
    const over = await call(s.sandbox, s.auth, 'refundBet', taken.refundBet(6.01));
    assert.deepEqual(over.json, { message: over.json.message, code: 'REFUND_EXCEEDS_BET', statusCode: 400 });
    assert.deepEqual(await s.sandbox.balances(taken.userId), { cash: '994.00', bonus: '0.00', reserved: '0.00' });

    // Part of the hold released first: what is confirmed afterwards can all come back.
    const split = bodies();
    await call(s.sandbox, s.auth, 'reserve', split.reserve(10));
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', split.refundBet(4))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'confirm', split.confirm(6))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', split.refundBet(6))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', split.refundBet(0.01))).json.code, 'REFUND_EXCEEDS_BET');
    assert.deepEqual(await s.sandbox.balances(split.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    // Its stake refunded in full, the bet has nothing left to settle: no winnings from nowhere.
    const late = await call(s.sandbox, s.auth, 'settleBet', split.settleBet(5));
    assert.deepEqual([late.status, late.json.code], [409, 'BET_STATE_CONFLICT']);
    assert.deepEqual(await s.sandbox.balances(split.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
  });

  test('a partial refund (credit betpartialrefund) counts with refundBet: together never more than the confirmed stake', async () => {
    const b = bodies();
    await call(s.sandbox, s.auth, 'reserve', b.reserve(10));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(10));
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(6, 'betpartialrefund'))).status, 200);
    const whole = await call(s.sandbox, s.auth, 'refundBet', b.refundBet(10));
    assert.deepEqual([whole.status, whole.json.code], [400, 'REFUND_EXCEEDS_BET'], 'the 6.00 already returned cannot come back twice');
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', b.refundBet(4))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(0.01, 'betpartialrefund'))).json.code, 'REFUND_EXCEEDS_BET');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    // A manual adjustment is not a refund of the stake: it still pays. A cash-out stands for
    // winnings, as settleBet does: once the stake came back there is nothing in play to cash out.
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(2, 'adjustreversetransaction'))).status, 200);
    const cashOut = await call(s.sandbox, s.auth, 'credit', b.credit(2, 'cashout'));
    assert.deepEqual([cashOut.status, cashOut.json.code], [409, 'BET_STATE_CONFLICT']);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1002.00', bonus: '0.00', reserved: '0.00' });
  });

  test('confirm, refundBet and settleBet without a successful reserve are UNKNOWN_BET; insufficient funds move nothing', async () => {
    const b = bodies();
    for (const op of ['confirm', 'refundBet', 'settleBet'] as const) {
      const res = await call(s.sandbox, s.auth, op, op === 'confirm' ? b.confirm(1) : b[op](1));
      assert.equal(res.status, 404);
      assert.equal(res.json.code, 'UNKNOWN_BET');
    }
    const poor = await call(s.sandbox, s.auth, 'reserve', b.reserve(1000.01));
    assert.deepEqual([poor.status, poor.json.code], [400, 'INSUFFICIENT_FUNDS']);
    assert.equal((await call(s.sandbox, s.auth, 'confirm', b.confirm(1))).json.code, 'UNKNOWN_BET');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    const seen = await fetch(`${s.sandbox.url}/balances/${b.userId}`, { headers: s.auth });
    assert.equal(((await seen.json()) as { known: boolean }).known, false, 'refused calls create no user');
  });

  // A debit takes back winnings the bet was paid, a partial refund returns part of its accepted
  // stake, a cash-out pays for it, a manual adjustment corrects it: without a reserve there is no
  // bet to do any of it for, and each would move money for nothing.
  test('debit and every credit need the bet: UNKNOWN_BET without a reserve; a credit before confirm or once released is BET_STATE_CONFLICT', async () => {
    const b = bodies();
    const credits = ['adjustreversetransaction', 'cashout', 'betpartialrefund'];
    const refused = [
      ...['deductbetwin', 'betwincancelled'].map((type) => ['debit', b.debit(1, type)] as const),
      ...credits.map((type) => ['credit', b.credit(1, type)] as const),
    ];
    for (const [op, body] of refused) {
      const res = await call(s.sandbox, s.auth, op, body);
      assert.deepEqual([res.status, res.json.code, body.transactionType], [404, 'UNKNOWN_BET', body.transactionType]);
    }
    await call(s.sandbox, s.auth, 'reserve', b.reserve(5));
    for (const type of credits) {
      const early = await call(s.sandbox, s.auth, 'credit', b.credit(1, type));
      assert.deepEqual([early.status, early.json.code, type], [409, 'BET_STATE_CONFLICT', type], 'nothing is accepted yet: the hold is released by refundBet');
    }
    assert.equal((await call(s.sandbox, s.auth, 'refundBet', b.refundBet(5))).status, 200);
    for (const type of credits) {
      assert.deepEqual([(await call(s.sandbox, s.auth, 'credit', b.credit(1, type))).json.code, type], ['BET_STATE_CONFLICT', type], 'nor once released');
    }
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
    assert.deepEqual([...(await s.sandbox.effects()).keys()].filter((id) => refused.some(([, body]) => body.transactionId === id)), []);
  });

  test('debit and credit move cash or bonus by bonusFlag — winnings (their reversal, a cash-out) always cash — with the transactionType values of spec 2.4 only', async () => {
    const b = bodies();
    await s.sandbox.seedUser(b.userId, { cash: '100.00', bonus: '50.00' });
    await call(s.sandbox, s.auth, 'reserve', b.reserve(2));
    await call(s.sandbox, s.auth, 'confirm', b.confirm(2));
    await call(s.sandbox, s.auth, 'settleBet', b.settleBet(10));
    for (const type of ['deductbetwin', 'betwincancelled']) assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(1, type))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(2, 'adjustreversetransaction', true))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'credit', b.credit(2, 'betpartialrefund'))).status, 200);
    // A settled bet is not cashed out: the cash-out is of a bet of its own, still open.
    const cashedOut = bodies(b.userId);
    await call(s.sandbox, s.auth, 'reserve', cashedOut.reserve(2));
    await call(s.sandbox, s.auth, 'confirm', cashedOut.confirm(2));
    assert.equal((await call(s.sandbox, s.auth, 'credit', cashedOut.credit(4, 'cashout', true))).status, 200);
    // cash −2 (the stake) +10 (winnings) −1 −1 (reversals) +2 (part of the cash stake back), then −2 (the
    // other stake) +4 (its bonus-flagged cash-out); bonus +2 (adjustment).
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '110.00', bonus: '52.00', reserved: '0.00' });
    // A bonus bet's winnings, paid in cash by settleBet, are reversed from cash too.
    for (const type of ['deductbetwin', 'betwincancelled']) assert.equal((await call(s.sandbox, s.auth, 'debit', b.debit(3, type, true))).status, 200);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '104.00', bonus: '52.00', reserved: '0.00' });
    const wrong = await call(s.sandbox, s.auth, 'debit', b.debit(1, 'cashout'));
    assert.deepEqual([wrong.status, wrong.json.code], [400, 'UNKNOWN_TRANSACTION_TYPE']);
    const bonusBet = bodies(b.userId);
    await call(s.sandbox, s.auth, 'reserve', bonusBet.reserve(6, true));
    assert.equal((await call(s.sandbox, s.auth, 'confirm', bonusBet.confirm(6, false))).json.code, 'BONUS_FLAG_MISMATCH');
    await call(s.sandbox, s.auth, 'confirm', bonusBet.confirm(6, true));
    await call(s.sandbox, s.auth, 'settleBet', bonusBet.settleBet(9, true));
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '113.00', bonus: '46.00', reserved: '0.00' });
  });

  test('a replay returns the original response and moves nothing; another body under one transactionId is 409 TRANSACTION_MISMATCH', async () => {
    const b = bodies();
    const reserve = b.reserve(12.34);
    const first = await call(s.sandbox, s.auth, 'reserve', reserve);
    await call(s.sandbox, s.auth, 'reserve', bodies(b.userId).reserve(1)); // balances change between the two
    const again = await call(s.sandbox, s.auth, 'reserve', { ...reserve, someNewField: { nested: true } });
    assert.equal(again.text, first.text);
    const other = await call(s.sandbox, s.auth, 'reserve', { ...reserve, amount: 12.35 });
    assert.deepEqual([other.status, other.json.code, other.json.statusCode], [409, 'TRANSACTION_MISMATCH', 409]);
    const otherOp = await call(s.sandbox, s.auth, 'credit', { ...b.credit(12.34, 'cashout'), transactionId: reserve.transactionId });
    assert.equal(otherOp.json.code, 'TRANSACTION_MISMATCH');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '986.66', bonus: '0.00', reserved: '13.34' });
    assert.equal((await s.sandbox.effects()).get(reserve.transactionId), 1);
  });

  test('concurrent duplicates of one transactionId take effect once and all get the same answer', async () => {
    const taken = bodies();
    await s.sandbox.seedBets([{ betId: taken.betId, userId: taken.userId, bonusFlag: false, reserved: '1.00', confirmed: '1.00',
      reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() }]);
    const b = bodies(taken.userId);
    const credit = taken.credit(7.77, 'adjustreversetransaction');
    const reserve = b.reserve(3);
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, () => call(s.sandbox, s.auth, 'credit', credit)),
      ...Array.from({ length: 12 }, () => call(s.sandbox, s.auth, 'reserve', reserve)),
    ]);
    assert.equal(new Set(answers.slice(0, 12).map((a) => a.text)).size, 1);
    assert.equal(new Set(answers.slice(12).map((a) => a.text)).size, 1);
    assert.ok(answers.every((a) => a.status === 200));
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1003.77', bonus: '0.00', reserved: '3.00' });
    const effects = await s.sandbox.effects();
    assert.equal(effects.get(credit.transactionId), 1);
    assert.equal(effects.get(reserve.transactionId), 1);
  });

  test('seedBets: bets reserved and confirmed without HTTP take settleBet; a seed beyond the funds throws', async () => {
    const b = bodies();
    const bonus = bodies(b.userId);
    const seed = (x: typeof b, bonusFlag: boolean, reserved: string, confirmed: string) => ({
      betId: x.betId, userId: x.userId, bonusFlag, reserved, confirmed, reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() });
    const seeds = [seed(b, false, '10.00', '8.00'), seed(bonus, true, '5.00', '5.00')];
    await s.sandbox.seedUser(b.userId, { bonus: '20.00' });
    await s.sandbox.seedBets(seeds);
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '992.00', bonus: '15.00', reserved: '0.00' });
    assert.equal((await call(s.sandbox, s.auth, 'settleBet', b.settleBet(24))).status, 200);
    assert.equal((await call(s.sandbox, s.auth, 'confirm', bonus.confirm(5, true))).json.code, 'BET_STATE_CONFLICT');
    assert.deepEqual(await s.sandbox.balances(b.userId), { cash: '1016.00', bonus: '15.00', reserved: '0.00' });
    const effects = await s.sandbox.effects();
    assert.deepEqual(seeds.flatMap((s) => [effects.get(s.reserveTransactionId), effects.get(s.confirmTransactionId)]), [1, 1, 1, 1]);
    await assert.rejects(s.sandbox.seedBets([seed(bodies(), false, '1000.01', '1000.01')]), /INSUFFICIENT_FUNDS/);
  });

  test('bad input is a 400 VALIDATION_ERROR naming the field; unknown fields are tolerated', async () => {
    const b = bodies();
    const cases: Array<[unknown, RegExp]> = [
      [{ ...b.reserve(1), amount: 1.001 }, /amount/],
      [{ ...b.reserve(1), amount: -1 }, /amount/],
      [{ ...b.reserve(1), amount: '1.00' }, /amount/],
      [{ ...b.reserve(1), betId: 'bet-1' }, /betId/],
      [{ ...b.reserve(1), bonusFlag: 'no' }, /bonusFlag/],
      [{ ...b.reserve(1), token: undefined }, /token/],
      [{ ...b.confirm(1), betMetadata: { id: b.betId, legs: [{ betTypeId: 1.5 }] } }, /legs\[0\]\.betTypeId/],
      [[1, 2], /object/],
    ];
    for (const [body, message] of cases) {
      const op = (body as { betMetadata?: unknown }).betMetadata ? 'confirm' : 'reserve';
      const res = await call(s.sandbox, s.auth, op, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.code, 'VALIDATION_ERROR');
      assert.match(res.json.message, message);
    }
    const garbled = await fetch(`${s.sandbox.url}/reserve`, { method: 'POST', headers: s.auth, body: '{"transactionId":' });
    assert.equal(((await garbled.json()) as { code: string }).code, 'VALIDATION_ERROR');
    const extra = await call(s.sandbox, s.auth, 'reserve', { ...b.reserve(1), brandNewField: [1, 2, 3], metadata: { userId: b.userId, more: 1 } });
    assert.equal(extra.status, 200);
  });
});
