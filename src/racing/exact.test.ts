// Exact fractions: reduced, signed on the numerator, and rounded once, down to the cent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz.ts';
import { add, cents, decimalText, floorCents, fraction, max, min, mul, ONE, product, sub, ZERO } from './exact.ts';

test('fractions are kept reduced with a positive denominator', () => {
  assert.deepEqual(fraction(6n, -4n), { n: -3n, d: 2n });
  assert.deepEqual(fraction(0n, 5n), ZERO);
  assert.deepEqual(fraction(-10n, -20n), { n: 1n, d: 2n });
  assert.throws(() => fraction(1n, 0n), RangeError);
  assert.deepEqual(add(fraction(1n, 3n), fraction(1n, 6n)), { n: 1n, d: 2n });
  assert.deepEqual(sub(fraction(1n, 2n), fraction(3n, 4n)), { n: -1n, d: 4n });
  assert.deepEqual(mul(fraction(2n, 3n), fraction(9n, 4n)), { n: 3n, d: 2n });
  assert.deepEqual(product([]), ONE);
  assert.deepEqual(max(fraction(1n, 3n), fraction(2n, 7n)), fraction(1n, 3n));
  assert.deepEqual(min(fraction(-1n, 3n), fraction(2n, 7n)), fraction(-1n, 3n));
});

test('decimal text is read exactly, never through a float', () => {
  assert.deepEqual(decimalText('3.50'), { n: 7n, d: 2n });
  assert.deepEqual(decimalText('12'), { n: 12n, d: 1n });
  assert.deepEqual(decimalText('0.05'), { n: 1n, d: 20n });
  assert.deepEqual(decimalText('41.6666'), { n: 208_333n, d: 5000n });
  assert.deepEqual(mul(decimalText('0.1'), fraction(3n)), decimalText('0.3'), '0.1 × 3 is exactly 0.3');
  for (const bad of ['', 'abc', '1e5', '3.', '.5', '1,5', ' 3']) assert.throws(() => decimalText(bad), RangeError, JSON.stringify(bad));
});

test('dollars to cents: rounded down, once', () => {
  const rows: Array<[string, ReturnType<typeof fraction>, bigint]> = [
    ['$0.2331', decimalText('0.2331'), 23n],
    ['$1/3', fraction(1n, 3n), 33n],
    ['$2/3', fraction(2n, 3n), 66n],
    ['$7.50 exactly', decimalText('7.5'), 750n],
    ['$49.99992', decimalText('49.99992'), 4999n],
    ['$0', ZERO, 0n],
    ['−$0.005 (below zero: down is away from zero)', decimalText('-0.005'), -1n],
  ];
  for (const [name, value, expected] of rows) assert.equal(floorCents(value), expected, name);
  assert.deepEqual(cents(1250n), { n: 25n, d: 2n });
});

test('floorCents is the largest whole cent not above the value', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (n, d) => {
    const value = fraction(n, d);
    const c = floorCents(value);
    assert.ok(c * value.d <= value.n * 100n && value.n * 100n < (c + 1n) * value.d, `${n}/${d} → ${c}`);
  }), fuzzRuns(500));
});

test('add and sub are inverse, mul by the reciprocal is one; results stay reduced', () => {
  const frac = fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 6n })).map(([n, d]) => fraction(n, d));
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
  fc.assert(fc.property(frac, frac, (a, b) => {
    assert.deepEqual(sub(add(a, b), b), a);
    if (a.n !== 0n) assert.deepEqual(mul(a, fraction(a.d, a.n)), ONE);
    for (const r of [add(a, b), sub(a, b), mul(a, b)]) assert.ok(r.d > 0n && gcd(r.n, r.d) === 1n, `${r.n}/${r.d}`);
  }), fuzzRuns(300));
});
