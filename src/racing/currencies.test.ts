// The one currency rule: the active codes of ISO 4217 Table A.1, whatever the Node version's ICU knows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencyCode, ISO_4217_CODES, takesBetsIn } from './currencies.ts';

test('active codes pass in any case, as upper case', () => {
  for (const [sent, code] of [['AUD', 'AUD'], ['nzd', 'NZD'], ['Usd', 'USD'], ['XCG', 'XCG'], ['ZWG', 'ZWG'], ['EUR', 'EUR']]) {
    assert.equal(currencyCode(sent), code, sent);
  }
});

test('unknown, withdrawn and malformed codes are refused', () => {
  // XYZ was never a code; BGN, HRK, ANG, CUC, SLL and ZWL are withdrawn (ICU still lists them).
  for (const sent of ['XYZ', 'AUDD', 'AU', '', ' AUD', 'BGN', 'HRK', 'ANG', 'CUC', 'SLL', 'ZWL', 36, null, undefined, ['AUD']]) {
    assert.equal(currencyCode(sent), undefined, String(sent));
  }
});

test('the list is Table A.1: 178 distinct codes of three capital letters', () => {
  assert.equal(ISO_4217_CODES.size, 178);
  for (const code of ISO_4217_CODES) assert.match(code, /^[A-Z]{3}$/);
});

test('bets are taken in currencies of hundredths or finer, not in those without a minor unit', () => {
  for (const code of ['AUD', 'NZD', 'EUR', 'GBP', 'KWD', 'BHD', 'CLF', 'UYW', 'IDR', 'HUF']) assert.equal(takesBetsIn(code), true, code);
  for (const code of ['JPY', 'KRW', 'VND', 'ISK', 'CLP', 'XOF', 'XAU', 'XDR', 'XXX', 'XTS', 'XYZ']) assert.equal(takesBetsIn(code), false, code);
  // Cross-checked with the Unicode CLDR's digits as Node's ICU has them: every code refused for a
  // minor unit of 0 has none there either (CLDR rounds some others, IDR say, which ISO does not).
  const digits = (code: string) => new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits;
  const zero = [...ISO_4217_CODES].filter((code) => !takesBetsIn(code) && !code.startsWith('X'));
  assert.ok(zero.length >= 14);
  for (const code of zero) assert.equal(digits(code), 0, code);
  for (const code of ['AUD', 'USD', 'KWD']) assert.ok(digits(code)! >= 2, code);
});
