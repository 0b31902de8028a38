import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { amountOnWire, centsToDollars, dollarsToCents, normalizeAmount } from './amounts.ts';
import { buildBody, validateExtra } from './operations.ts';
import { afterFailure, classifyResponse, MAX_RETRIES } from './responses.ts';

test('classification: success only for 2xx with success: true', () => {
  assert.equal(classifyResponse(200, '{"success":true}').verdict, 'success');
  assert.equal(classifyResponse(201, '{"success":true,"extra":1}').verdict, 'success');
  assert.equal(classifyResponse(200, '{"success":false}').verdict, 'retry');
  assert.equal(classifyResponse(200, '{"success":"true"}').verdict, 'retry');
  assert.equal(classifyResponse(200, '').verdict, 'retry');
  assert.equal(classifyResponse(200, '<html>ok</html>').verdict, 'retry');
  assert.equal(classifyResponse(200, '[true]').verdict, 'retry');
});

test('classification: 5xx, 408, 429 retried; 401 renews; other 4xx final; error body kept', () => {
  for (const status of [500, 502, 503, 504, 408, 429, 302]) assert.equal(classifyResponse(status, '').verdict, 'retry', String(status));
  for (const status of [400, 403, 404, 409, 422]) assert.equal(classifyResponse(status, '{}').verdict, 'final', String(status));
  assert.deepEqual(classifyResponse(401, '{"message":"bad token","code":"INVALID_TOKEN","statusCode":401}'), {
    verdict: 'unauthorized', code: 'INVALID_TOKEN', message: 'bad token',
  });
  assert.deepEqual(classifyResponse(402, '{"message":"no money","code":"INSUFFICIENT_FUNDS","statusCode":402}'), {
    verdict: 'final', code: 'INSUFFICIENT_FUNDS', message: 'no money',
  });
  assert.equal(classifyResponse(404, '<html>not found</html>').verdict, 'final');
});

test('classification: an API-key wallet\'s 403 refuses our key, as a 401 does; with client credentials a 403 stays final', () => {
  assert.deepEqual(classifyResponse(403, '{"message":"key refused","code":"FORBIDDEN","statusCode":403}', 'api_key'), {
    verdict: 'unauthorized', code: 'FORBIDDEN', message: 'key refused',
  });
  assert.equal(classifyResponse(401, '{}', 'api_key').verdict, 'unauthorized');
  assert.equal(classifyResponse(403, '{}', 'client_credentials').verdict, 'final');
  for (const status of [400, 404, 409, 422]) assert.equal(classifyResponse(status, '{}', 'api_key').verdict, 'final', String(status));
});

test('schedule: 5, 10, 20, 60, 60 minutes after each failure, then parked (spec 8)', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const delays: number[] = [];
  let failures = 0;
  for (;;) {
    const next = afterFailure(failures, 'retry', now);
    if (next.status === 'failed') {
      assert.equal(next.failures, MAX_RETRIES + 1);
      break;
    }
    delays.push((next.nextAttemptAt.getTime() - now.getTime()) / 60_000);
    failures = next.failures;
  }
  assert.deepEqual(delays, [5, 10, 20, 60, 60]);
  assert.equal(afterFailure(0, 'final', now).status, 'failed');
});

test('amounts: dollars with two decimals or integer cents, no floats', () => {
  assert.equal(normalizeAmount('12.5'), '12.50');
  assert.equal(normalizeAmount('007'), '7.00');
  assert.equal(normalizeAmount(1250n), '12.50');
  assert.equal(amountOnWire('0.1', 'cents'), '10');
  assert.equal(amountOnWire('19.99', 'dollars'), '19.99');
  for (const wrong of ['-1', '-0', '-0.00', '000000000000001', '1.234', '1e3', '', 'abc', '1.']) assert.throws(() => normalizeAmount(wrong), /amount must be/);
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (cents) => dollarsToCents(centsToDollars(cents)) === cents));
});

const ids = {
  transactionId: '3f1c1f5e-8a39-4c1e-9a49-1f0f7c2f5a11',
  betId: '7d0b1e4e-5c7b-4a55-8d4b-6f3e0a2b9c10',
  userId: '0e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a',
};

test('bodies carry exactly the spec 2.4 fields of each operation', () => {
  const common = { ...ids, bonusFlag: false, amount: '12.50' };
  const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parse(buildBody({ op: 'settleBet', ...common, extra: {} }, 'dollars'))).sort(),
    ['amount', 'betId', 'bonusFlag', 'transactionId', 'userId']);
  assert.match(buildBody({ op: 'settleBet', ...common, extra: {} }, 'dollars'), /"amount":12\.50[,}]/);
  assert.match(buildBody({ op: 'settleBet', ...common, extra: {} }, 'cents'), /"amount":1250[,}]/);
  const debit = parse(buildBody({ op: 'debit', ...common, extra: validateExtra('debit', { transactionType: 'deductbetwin' }) }, 'dollars'));
  assert.equal(debit.transactionType, 'deductbetwin');
  const confirm = parse(buildBody({ op: 'confirm', ...common, extra: validateExtra('confirm', { betMetadata: { id: ids.betId, legs: [] } }) }, 'dollars'));
  assert.deepEqual(confirm.betMetadata, { id: ids.betId, legs: [] });
  const metadata = { userId: ids.userId, brandName: 'B', brandUserId: 'u1', data: '' };
  const reserve = parse(buildBody({ op: 'reserve', ...common, token: 'tok', extra: validateExtra('reserve', { metadata }) }, 'dollars'));
  assert.deepEqual(Object.keys(reserve).sort(), ['amount', 'betId', 'bonusFlag', 'metadata', 'token', 'transactionId', 'userId']);
  assert.throws(() => validateExtra('credit', { transactionType: 'deductbetwin' }), /transactionType of credit must be one of adjustreversetransaction, cashout, betpartialrefund/);
  assert.throws(() => validateExtra('settleBet', { transactionType: 'cashout' }), /not a field of settleBet/);
  assert.throws(() => validateExtra('confirm', {}), /confirm needs betMetadata/);
});
