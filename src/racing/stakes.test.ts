// Stakes, odds, percentages and limits: exact, and rounded down where they divide.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { acceptStake, atLeast, decimal, formatOdds, multiply, parseStake, payoutCents, payoutMultiple, percentageUnits, stakeForPayout } from './stakes.ts';

test('stakes: positive whole cents only', () => {
  assert.equal(parseStake(10), 1000n);
  assert.equal(parseStake(0.1), 10n);
  assert.equal(parseStake(19.99), 1999n);
  assert.match(String(parseStake(0)), /more than 0/);
  assert.match(String(parseStake(-5)), /more than 0/);
  assert.match(String(parseStake(1.005)), /at most 2 decimal places/);
  assert.match(String(parseStake(Number.NaN)), /finite/);
  assert.match(String(parseStake(Number.POSITIVE_INFINITY)), /finite/);
  fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 11n - 1n }), (cents) => {
    assert.equal(parseStake(Number(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`)), cents);
  }));
  assert.equal(parseStake(999_999_999.99), 99_999_999_999n);
  assert.match(String(parseStake(1_000_000_000)), /below 1,000,000,000\.00/, 'as the message says');
});

test('odds: a multi is the exact product of its legs; comparisons are exact', () => {
  const odds = multiply([decimal('3.5')!, decimal('1.85')!, decimal('2.10')!]);
  assert.equal(formatOdds(odds), '13.5975');
  assert.equal(payoutCents(1000n, odds), 13597n); // $10 × 13.5975 = $135.975, rounded down
  assert.ok(atLeast(decimal('3.40')!, decimal('3.4')!));
  assert.ok(!atLeast(decimal('3.39')!, decimal('3.4')!));
});

test('percentage: stake ÷ combinations × 100 to 4 places, rounded down', () => {
  assert.equal(percentageUnits(100n, 1), 1_000_000n); // $1 on one combination: 100%
  assert.equal(percentageUnits(1000n, 24), 416_666n); // $10 over 24: 41.6666%
  assert.equal(percentageUnits(50n, 1), 500_000n); // 50c: 50% (flexi)
});

test('limits: the smallest cap wins and is named; no cap leaves the stake whole', () => {
  const none = { maxStake: null, maxPayout: null, maxRunnerLiability: null };
  assert.deepEqual(acceptStake(5000n, none, decimal('3.5')!, 0n), { acceptedCents: 5000n, limit: null });
  assert.deepEqual(acceptStake(5000n, { ...none, maxStake: 2000n }, null, null), { acceptedCents: 2000n, limit: 'max_stake' });
  assert.deepEqual(acceptStake(5000n, { ...none, maxPayout: 10000n }, decimal('4')!, null), { acceptedCents: 2500n, limit: 'max_payout' });
  assert.deepEqual(acceptStake(5000n, { ...none, maxRunnerLiability: 10000n }, decimal('2')!, 9000n), { acceptedCents: 500n, limit: 'max_runner_liability' });
  assert.deepEqual(acceptStake(5000n, { ...none, maxRunnerLiability: 10000n }, decimal('2')!, 12000n), { acceptedCents: 0n, limit: 'max_runner_liability' });
  assert.deepEqual(acceptStake(5000n, { ...none, maxPayout: 10000n }, null, null), { acceptedCents: 5000n, limit: null }, 'tote: no payout cap');
});

test('property: an accepted stake never pays more than the payout limit, and one cent more would (exactly)', () => {
  fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 101n, max: 100_000n }), fc.bigInt({ min: 0n, max: 10n ** 10n }),
    (stake, priceUnits, maxPayout) => {
      const odds = { units: priceUnits, places: 2 };
      const { acceptedCents } = acceptStake(stake, { maxStake: null, maxPayout, maxRunnerLiability: null }, odds, null);
      assert.ok(acceptedCents <= stake);
      assert.ok(payoutCents(acceptedCents, odds) <= maxPayout);
      if (acceptedCents < stake) assert.ok((acceptedCents + 1n) * priceUnits > maxPayout * 100n);
      assert.equal(stakeForPayout(maxPayout, odds), acceptedCents < stake ? acceptedCents : stakeForPayout(maxPayout, odds));
    }));
});

test('a bonus bet is weighed by its winnings (odds − 1): what settlement pays it; one at 1.00 pays nothing, so no payout limit binds', () => {
  const none = { maxStake: null, maxPayout: null, maxRunnerLiability: null };
  assert.equal(formatOdds(payoutMultiple(decimal('3.5')!, true)), '2.5');
  assert.deepEqual(payoutMultiple(decimal('3.5')!, false), decimal('3.5'));
  assert.equal(payoutCents(1001n, payoutMultiple(decimal('3.33')!, true)), payoutCents(1001n, decimal('3.33')!) - 1001n, 'the return less the stake');
  assert.deepEqual(acceptStake(2000n, { ...none, maxPayout: 2500n }, payoutMultiple(decimal('3')!, true), null), { acceptedCents: 1250n, limit: 'max_payout' });
  assert.deepEqual(acceptStake(2000n, { ...none, maxPayout: 2500n, maxRunnerLiability: 0n }, payoutMultiple(decimal('1')!, true), 500n),
    { acceptedCents: 2000n, limit: null });
});
