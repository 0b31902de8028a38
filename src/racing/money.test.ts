// The one money module: exact round trips, one rounding rule, never a floating-point artefact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  centsFromWire, centsOnWire, centsToDollars, formatDecimal, fromNumber, MICRO_PLACES, numberToDecimal, parseDecimal, parseDollars,
} from './money.ts';

const places = fc.integer({ min: 0, max: 8 });

test('decimal text round-trips exactly through units, at any number of places', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), places, (units, p) => {
    assert.equal(parseDecimal(formatDecimal(units, p, 'fixed'), p), units);
    assert.equal(parseDecimal(formatDecimal(units, p, 'trim'), p), units);
  }));
});

test('formatted amounts carry no floating-point artefact: only digits, one point, at most the places asked', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), places, (units, p) => {
    const text = formatDecimal(units, p, 'trim');
    assert.match(text, p ? new RegExp(`^-?\\d+(\\.\\d{1,${p}})?$`) : /^-?\d+$/);
    assert.doesNotMatch(text, /e|^-0$|\.\d*0$/);
  }));
});

test('a decimal sent as a JSON number is kept exactly as written (up to 15 significant digits)', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 6 }), (units, p) => {
    const text = formatDecimal(units, p, 'trim');
    const m = numberToDecimal(Number(text), MICRO_PLACES);
    assert.equal(m.text, text);
    assert.ok(m.sentPlaces <= p);
    assert.equal(fromNumber(Number(text), p).units, units);
  }));
});

test('more places than kept are rounded half away from zero, on the digits, never by float arithmetic', () => {
  const cases: Array<[number, string, number]> = [
    [3.333333333333333, '3.333333', 15], [14.415, '14.415', 3], [0.0000005, '0.000001', 7], [-0.0000005, '-0.000001', 7],
    [0.00000049, '0', 8], [1.0000005, '1.000001', 7], [2.9999999, '3', 7], [-2.9999999, '-3', 7], [1e-7, '0', 7], [-0, '0', 0],
    [123456789012.5, '123456789012.5', 1], [1.005, '1.005', 3],
  ];
  for (const [n, text, sent] of cases) assert.deepEqual(numberToDecimal(n, MICRO_PLACES), { text, sentPlaces: sent }, String(n));
  // Cents: 1.005 is "1.005" to its sender, so it rounds up to 1.01 (a float multiplication gives 1.00).
  assert.equal(fromNumber(1.005, 2).units, 101n);
  assert.equal(fromNumber(-2.675, 2).units, -268n);
});

test('dollars and cents: two decimals exactly, negatives and other forms refused', () => {
  assert.equal(parseDollars('12.5'), 1250n);
  assert.equal(parseDollars(' 007 '), 700n);
  for (const wrong of ['-1', '-0', '-0.00', '+1', '1.234', '1e3', '', 'abc', '1.', '.5', '0x10']) assert.equal(parseDollars(wrong), undefined, wrong);
  assert.equal(centsToDollars(1250n), '12.50');
  assert.equal(centsToDollars(-5), '-0.05');
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (cents) => parseDollars(centsToDollars(cents)) === cents));
});

test('wallet wire amounts: dollars (12.50) or integer cents (1250), read back exactly, float sums refused', () => {
  assert.equal(centsOnWire(10n, 'cents'), '10');
  assert.equal(centsOnWire(1999n, 'dollars'), '19.99');
  const max = 10n ** 13n;
  fc.assert(fc.property(fc.bigInt({ min: 0n, max }), fc.constantFrom('dollars' as const, 'cents' as const), (cents, unit) => {
    assert.equal(centsFromWire(JSON.parse(centsOnWire(cents, unit)), unit, max), cents);
  }));
  assert.equal(centsFromWire(0.1 + 0.2, 'dollars', max), undefined);
  assert.equal(centsFromWire(12.5, 'cents', max), undefined);
  assert.equal(centsFromWire(-1, 'dollars', max), undefined);
  assert.equal(centsFromWire('12.50', 'dollars', max), undefined);
  assert.equal(centsFromWire(1e14, 'cents', max), undefined);
});
