import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPoolRaces, parseDeduction, parsePrice, parseProducts } from './catalogue-rules.ts';
import { isoInZone, localDate, zonedInstant } from './race-times.ts';

test('prices: 1.01 to 10000, at most 2 decimals, exact text from numbers and strings', () => {
  for (const [input, text] of [[3.5, '3.50'], [1.01, '1.01'], ['2.4', '2.40'], [10000, '10000.00'], [0.1 + 2.2, undefined], [1.005, undefined],
    [1, undefined], [1.001, undefined], [10000.01, undefined], ['3.456', undefined], ['abc', undefined], [Number.NaN, undefined], [Infinity, undefined],
    [-3, undefined], [null, undefined], ['1e2', undefined]] as const) {
    const parsed = parsePrice(input);
    assert.deepEqual(parsed.ok ? parsed.value : undefined, text, `price ${String(input)}`);
  }
});

test('deductions: 0 to 99.99 percent, at most 2 decimals', () => {
  assert.deepEqual(parseDeduction(15), { ok: true, value: '15.00' });
  assert.deepEqual(parseDeduction('0'), { ok: true, value: '0.00' });
  assert.deepEqual(parseDeduction(99.99), { ok: true, value: '99.99' });
  for (const bad of [100, -1, 12.345, 'x']) assert.equal(parseDeduction(bad).ok, false, String(bad));
});

test('products: known, distinct, lower-cased; multi and pools are not race products', () => {
  assert.deepEqual(parseProducts(['WIN', 'place', 'firstfour']), { ok: true, value: ['win', 'place', 'firstfour'] });
  assert.match((parseProducts(['win', 'win']) as { message: string }).message, /twice/);
  assert.match((parseProducts(['multi']) as { message: string }).message, /any race offering win/);
  assert.match((parseProducts(['quaddie']) as { message: string }).message, /pools/);
  assert.equal(parseProducts([]).ok, false);
  assert.equal(parseProducts('win').ok, false);
});

test('pools: exactly 4 (quaddie) or 2 (daily double) distinct ascending races of the meeting', () => {
  const known = new Set([1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(checkPoolRaces('quaddie', [5, 6, 7, 8], known), undefined);
  assert.equal(checkPoolRaces('dailydouble', [2, 7], known), undefined);
  assert.match(checkPoolRaces('quaddie', [5, 6, 7], known)!, /exactly 4/);
  assert.match(checkPoolRaces('dailydouble', [8, 7], known)!, /distinct and ascending/);
  assert.match(checkPoolRaces('dailydouble', [7, 7], known)!, /distinct and ascending/);
  assert.match(checkPoolRaces('quaddie', [6, 7, 8, 9], known)!, /race 9 of the quaddie is not a race of the meeting/);
  assert.match(checkPoolRaces('dailydouble', ['7', 8], known)!, /exactly 2/);
});

test('local race times follow the jurisdiction zone, daylight saving included', () => {
  const ms = zonedInstant('2026-11-21', 14 * 60 + 10, 'Australia/Melbourne');
  assert.equal(new Date(ms).toISOString(), '2026-11-21T03:10:00.000Z');
  assert.equal(isoInZone(ms, 'Australia/Melbourne'), '2026-11-21T14:10:00+11:00');
  assert.equal(isoInZone(zonedInstant('2026-06-21', 14 * 60, 'Australia/Melbourne'), 'Australia/Melbourne'), '2026-06-21T14:00:00+10:00');
  assert.equal(isoInZone(zonedInstant('2026-11-21', 14 * 60, 'Australia/Brisbane'), 'Australia/Brisbane'), '2026-11-21T14:00:00+10:00');
  assert.equal(localDate(Date.parse('2026-11-23T13:30:00Z'), 'Australia/Sydney'), '2026-11-24');
});
