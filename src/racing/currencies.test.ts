// The one currency rule: the active codes of ISO 4217 Table A.1, whatever the Node version's ICU knows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencyCode, ISO_4217_CODES } from './currencies.ts';

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
