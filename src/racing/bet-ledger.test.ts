// The wallet calls a verdict still owes, from what the wallet was already sent: tables of ledgers
// and verdicts with the calls worked out by hand (docs/settlement-running.md, "Wallet calls").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz.ts';
import { apply, EMPTY_LEDGER, movesToCancel, movesToRefund, movesToSettle, type Ledger, type Move } from './bet-ledger.ts';

const STAKE = 1000n;
const ledger = (payoutCents: bigint, partialRefundCents = 0n, refundedCents = 0n, settled = true): Ledger => ({ payoutCents, partialRefundCents, refundedCents, settled });
const settled = (payoutCents: bigint, partialRefundCents = 0n) => ({ state: 'settled', won: payoutCents > 0n, payoutCents, partialRefundCents, reason: 'test' }) as const;

const settleBet = (amountCents: bigint): Move => ({ op: 'settleBet', amountCents });
const refundBet = (amountCents: bigint): Move => ({ op: 'refundBet', amountCents });
const deductBetWin = (amountCents: bigint): Move => ({ op: 'debit', amountCents, transactionType: 'deductbetwin' });
const betWinCancelled = (amountCents: bigint): Move => ({ op: 'debit', amountCents, transactionType: 'betwincancelled' });
const partialRefund = (amountCents: bigint): Move => ({ op: 'credit', amountCents, transactionType: 'betpartialrefund' });

test('settling: the first settlement always sends settleBet, a repeated one nothing, an amendment the change', () => {
  const rows: Array<[string, Ledger, ReturnType<typeof settled>, Move[]]> = [
    ['first settlement of a loser: settleBet 0 closes the bet', EMPTY_LEDGER, settled(0n), [settleBet(0n)]],
    ['the loser settled again: nothing', ledger(0n), settled(0n), []],
    ['first settlement of a winner: settleBet of the payout', EMPTY_LEDGER, settled(3500n), [settleBet(3500n)]],
    ['the winner settled again: nothing', ledger(3500n), settled(3500n), []],
    ['amended up, $15.00 → $35.00: settleBet of the $20.00 newly due', ledger(1500n), settled(3500n), [settleBet(2000n)]],
    ['amended down, $35.00 → $15.00: debit deductbetwin of the $20.00 no longer due', ledger(3500n), settled(1500n), [deductBetWin(2000n)]],
    ['amended to a loser: the whole $35.00 reversed', ledger(3500n), settled(0n), [deductBetWin(3500n)]],
    ['amended from a loser to a winner: settleBet of $35.00', ledger(0n), settled(3500n), [settleBet(3500n)]],
    ['partial refund: credit betpartialrefund first, then settleBet', EMPTY_LEDGER, settled(4999n, 750n), [partialRefund(750n), settleBet(4999n)]],
    ['partial refund of a loser: the credit, then settleBet 0', EMPTY_LEDGER, settled(0n, 66n), [partialRefund(66n), settleBet(0n)]],
    ['partial refund already sent, amended up: only the payout change', ledger(4999n, 750n), settled(6000n, 750n), [settleBet(1001n)]],
    ['partial refund already sent, amended down: only the debit', ledger(4999n, 750n), settled(0n, 750n), [deductBetWin(4999n)]],
  ];
  for (const [name, before, verdict, expected] of rows) {
    assert.deepEqual(movesToSettle(before, verdict), expected, name);
    const after = apply(before, expected);
    assert.deepEqual(after, { ...before, payoutCents: verdict.payoutCents, partialRefundCents: verdict.partialRefundCents, settled: true }, `${name}: ledger after`);
    assert.deepEqual(movesToSettle(after, verdict), [], `${name}: sent again`);
  }
});

test('settling cannot take back a partial refund or pay a bet whose stake was refunded', () => {
  assert.throws(() => movesToSettle(ledger(0n, 750n), settled(0n, 500n)), RangeError);
  assert.throws(() => movesToSettle(ledger(0n, 0n, STAKE, false), settled(3500n)), RangeError, 'refunded, then a settlement');
  assert.throws(() => movesToSettle(ledger(0n, 750n, 250n), settled(3500n, 750n)), RangeError, 'cancelled after a partial refund, then a settlement');
});

test('refunds and cancellations: winnings paid reversed first, then the stake not yet returned', () => {
  const rows: Array<[string, Ledger, Move[], Move[]]> = [
    // name, ledger, movesToRefund, movesToCancel
    ['unsettled: the whole stake', EMPTY_LEDGER, [refundBet(STAKE)], [refundBet(STAKE)]],
    ['settled loser: the whole stake', ledger(0n), [refundBet(STAKE)], [refundBet(STAKE)]],
    ['settled winner of $35.00: the payout reversed, then the stake', ledger(3500n), [deductBetWin(3500n), refundBet(STAKE)], [betWinCancelled(3500n), refundBet(STAKE)]],
    ['partly refunded ($7.50) loser: the $2.50 left', ledger(0n, 750n), [refundBet(250n)], [refundBet(250n)]],
    ['partly refunded ($7.50) winner of $49.99: reversed, then the $2.50 left', ledger(4999n, 750n),
      [deductBetWin(4999n), refundBet(250n)], [betWinCancelled(4999n), refundBet(250n)]],
    ['already refunded: nothing', ledger(0n, 0n, STAKE, false), [], []],
    ['already refunded after a partial refund: nothing', ledger(0n, 750n, 250n), [], []],
  ];
  for (const [name, before, toRefund, toCancel] of rows) {
    assert.deepEqual(movesToRefund(before, STAKE), toRefund, `${name}: refund`);
    assert.deepEqual(movesToCancel(before, STAKE), toCancel, `${name}: cancel`);
    for (const after of [apply(before, toRefund), apply(before, toCancel)]) {
      assert.equal(after.payoutCents, 0n, `${name}: no winnings left`);
      assert.equal(after.refundedCents + after.partialRefundCents, STAKE, `${name}: the stake returned once`);
      assert.deepEqual(movesToRefund(after, STAKE), [], `${name}: refunded again`);
      assert.deepEqual(movesToCancel(after, STAKE), [], `${name}: cancelled again`);
    }
  }
});

test('a result amended back and forth pays the winnings once', () => {
  let current = EMPTY_LEDGER;
  const sent: Move[] = [];
  for (const payout of [3500n, 1500n, 3500n, 0n, 3500n, 3500n]) {
    const moves = movesToSettle(current, settled(payout));
    sent.push(...moves);
    current = apply(current, moves);
  }
  assert.deepEqual(sent, [settleBet(3500n), deductBetWin(2000n), settleBet(2000n), deductBetWin(3500n), settleBet(3500n)]);
  assert.equal(current.payoutCents, 3500n);
});

test('apply: cash outs and adjustments are outside the ledger', () => {
  const other: Move[] = [{ op: 'credit', amountCents: 500n, transactionType: 'cashout' }, { op: 'credit', amountCents: 7n, transactionType: 'adjustreversetransaction' }];
  assert.deepEqual(apply(ledger(3500n, 750n), other), ledger(3500n, 750n));
});

type Step = { op: 'settle'; payoutCents: bigint; partialRefundCents: bigint } | { op: 'refund' } | { op: 'cancel' };

/** Settlements (random payouts, partial refunds that never shrink), then maybe refunds, then maybe a cancel. */
const history = fc.bigInt({ min: 1n, max: 10n ** 8n }).chain((stake) => fc.tuple(
  fc.constant(stake),
  fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: stake })), { maxLength: 6 }),
  fc.nat({ max: 2 }),
  fc.boolean(),
)).map(([stake, settles, refunds, cancel]) => {
  const partials = settles.map(([, partial]) => partial).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const steps: Step[] = settles.map(([payoutCents], i) => ({ op: 'settle', payoutCents, partialRefundCents: partials[i]! }));
  for (let i = 0; i < refunds; i++) steps.push({ op: 'refund' });
  if (cancel) steps.push({ op: 'cancel' });
  return { stake, steps };
});

test('any history: the wallet is sent exactly what the latest verdict is owed, in whole non-negative cents, once', () => {
  fc.assert(fc.property(history, ({ stake, steps }) => {
    let current = EMPTY_LEDGER;
    const sent: Move[] = [];
    const moves = (step: Step, at: Ledger) => (step.op === 'settle' ? movesToSettle(at, settled(step.payoutCents, step.partialRefundCents))
      : step.op === 'refund' ? movesToRefund(at, stake) : movesToCancel(at, stake));
    for (const [i, step] of steps.entries()) {
      const now = moves(step, current);
      for (const m of now) assert.ok(typeof m.amountCents === 'bigint' && m.amountCents >= 0n, `${m.op} of ${m.amountCents}`);
      const index = (op: Move['op']) => now.findIndex((m) => m.op === op);
      if (index('credit') >= 0 && index('settleBet') >= 0) assert.ok(index('credit') < index('settleBet'), 'partial refund before settleBet');
      if (index('debit') >= 0 && index('refundBet') >= 0) assert.ok(index('debit') < index('refundBet'), 'winnings reversed before refundBet');
      if (step.op === 'settle' && i === 0) assert.equal(now.filter((m) => m.op === 'settleBet').length, 1, 'the first settlement sends a settleBet');
      current = apply(current, now);
      sent.push(...now);
      assert.deepEqual(moves(step, current), [], 'the same verdict again sends nothing');
      // What the user holds from the bet, read off the calls alone.
      const net = sent.reduce((sum, m) => sum + (m.op === 'debit' ? -m.amountCents : m.amountCents), 0n);
      if (step.op === 'settle') {
        assert.deepEqual(current, { payoutCents: step.payoutCents, partialRefundCents: step.partialRefundCents, refundedCents: 0n, settled: true });
        assert.equal(net, step.payoutCents + step.partialRefundCents);
      } else {
        assert.equal(current.payoutCents, 0n);
        assert.equal(current.refundedCents + current.partialRefundCents, stake);
        assert.equal(net, stake, 'refunded or cancelled: the stake, once');
      }
    }
  }), fuzzRuns(500));
});
