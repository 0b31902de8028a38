import assert from 'node:assert/strict';
import { constants } from 'node:buffer';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_BATCH, requestBody, toBatches } from './batches.ts';
import { BetsFileError, decodeBetsFile, detectFormat, readBets, type FileBet } from './read-bets.ts';
import { backoffMs, DEFAULT_POLICY, retryAfterMs } from './retry.ts';
import { basicCredentials, tokenEndpoint } from './token-client.ts';

const examples = path.resolve(import.meta.dirname, '../../../examples');

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof BetsFileError, String(error));
    return error.problems;
  }
  assert.fail('expected a BetsFileError');
}

test('JSON: an array of bets, an upload request, and an array of upload requests', () => {
  const bets = readBets(JSON.stringify([{ meeting_id: '0012', race_number: '3', id: 'a' }, { meeting_id: 12, race_number: 4, id: 'b' }]), 'json', 2);
  assert.deepEqual(bets.map((b) => [b.meetingId, b.raceNumber, b.bet, b.at]), [
    ['12', 3, { id: 'a' }, '[0]'],
    ['12', 4, { id: 'b' }, '[1]'],
  ]);
  const request = readBets(JSON.stringify({ meeting_id: '7', race_number: 1, bets: [{ id: 'x' }, { id: 'y', race_number: 2 }] }), 'json', 2);
  assert.deepEqual(request.map((b) => [b.meetingId, b.raceNumber, b.bet, b.at]), [['7', 1, { id: 'x' }, 'bets[0]'], ['7', 2, { id: 'y' }, 'bets[1]']]);
  const many = readBets(JSON.stringify([{ meeting_id: 1, race_number: 1, bets: [{ id: 'p' }] }, { meeting_id: 2, race_number: 5, bets: [{ id: 'q' }] }]), 'json', 2);
  assert.deepEqual(many.map((b) => [b.meetingId, b.raceNumber, b.at]), [['1', 1, '[0].bets[0]'], ['2', 5, '[1].bets[0]']]);
});

test('every bet needs meeting_id and race_number; every problem is listed with its place', () => {
  const found = problems(() => readBets(JSON.stringify([{ id: 1 }, { meeting_id: 'x', race_number: 0 }, 'no', { meeting_id: 1, race_number: 1 }]), 'json', 2));
  assert.deepEqual(found, [
    '[0]: meeting_id is missing', '[0]: race_number is missing',
    '[1]: meeting_id must be a positive integer', '[1]: race_number must be a positive integer',
    '[2]: a bet must be an object',
  ]);
  assert.match(problems(() => readBets('{"bets": 3}', 'json', 2))[0]!, /"bets" must be an array/);
  assert.match(problems(() => readBets('[', 'json', 2))[0]!, /not valid JSON/);
  assert.deepEqual(problems(() => readBets('[]', 'json', 2)), ['the file holds no bets']);
  assert.match(problems(() => readBets('{"meeting_id":1,"race_number":1}\n{oops\n', 'ndjson', 2))[0]!, /^line 2: not valid JSON/);
});

test('ids follow the version: V1 integers, V2 strings', () => {
  const line = (id: unknown) => JSON.stringify({ meeting_id: 1, race_number: 1, id });
  assert.equal(readBets(line('123'), 'ndjson', 1)[0]!.bet.id, 123);
  assert.equal(readBets(line('A-1'), 'ndjson', 1)[0]!.bet.id, 'A-1'); // the service names the problem
  assert.equal(readBets(line(123), 'ndjson', 2)[0]!.bet.id, '123');
  assert.equal(readBets(line('B-9'), 'ndjson', 2)[0]!.bet.id, 'B-9');
});

test('an integer id a JSON number cannot hold exactly is refused, not rounded into another bet\'s id', () => {
  const file = '{"meeting_id": 1, "race_number": 1, "id": 1234567890123456789}\n{"meeting_id": 1, "race_number": 1, "id": 1234567890123456788}\n';
  for (const version of [1, 2] as const) {
    assert.deepEqual(problems(() => readBets(file, 'ndjson', version)), [1, 2].map((n) =>
      `line ${n}: id is an integer above 9007199254740991, which a JSON number cannot hold exactly; write it as a string ("id": "…")`));
  }
  assert.equal(readBets('{"meeting_id": 1, "race_number": 1, "id": "1234567890123456789"}', 'ndjson', 2)[0]!.bet.id, '1234567890123456789');
  assert.equal(readBets('{"meeting_id": 1, "race_number": 1, "id": 9007199254740991}', 'ndjson', 2)[0]!.bet.id, '9007199254740991');
});

test('CSV: header names the fields; booleans, money and integers converted; empty cells left out', () => {
  const csv = 'meeting_id,race_number,id,leg,amount,payout,bonus,resulted,runner_number,exotics_selection,user_id,price\n' +
    '55,2,9,2,3.333333333333333,-1.5,yes,FALSE,4,,cash,abc\n';
  const [bet] = readBets(csv, 'csv', 1) as [FileBet];
  assert.deepEqual(bet, {
    meetingId: '55', raceNumber: 2, at: 'row 2',
    bet: { id: 9, leg: 2, amount: 3.333333333333333, payout: -1.5, bonus: true, resulted: false, runner_number: 4, user_id: 'cash', price: 'abc' },
  });
  assert.deepEqual(problems(() => readBets('meeting_id,race_number,id\n1,,x\n', 'csv', 2)), ['row 2: race_number is missing']);
  assert.match(problems(() => readBets('a,a\n1,2\n', 'csv', 2))[0]!, /column "a" appears twice/);
  assert.match(problems(() => readBets('a,b\n1,2,3\n', 'csv', 2))[0]!, /not valid CSV/);
});

test('CSV: a bet_back_id is sent as an integer only when that is the same id ("00042" stays text, the service stores ids as text)', () => {
  const csv = 'meeting_id,race_number,id,bet_back_id\n1,1,a,00042\n1,1,b,42\n1,1,c,0\n';
  assert.deepEqual(readBets(csv, 'csv', 2).map((b) => b.bet.bet_back_id), ['00042', 42, 0]);
});

test('a number beyond a double\'s range: CSV sends it as text (the service refuses it); JSON and NDJSON refuse the file, saying where', () => {
  const csv = 'meeting_id,race_number,id,amount,payout,price\n1,1,a,10,1e400,-1E999\n';
  assert.deepEqual(readBets(csv, 'csv', 2)[0]!.bet, { id: 'a', amount: 10, payout: '1e400', price: '-1E999' });
  assert.deepEqual(problems(() => readBets('[{"meeting_id":1,"race_number":1,"id":"a","amount":10,"payout":1e400}]', 'json', 2)),
    ['[0]: payout is a number beyond a double\'s range (about ±1.8e308), which would be sent as null (not given)']);
  assert.match(problems(() => readBets('{"meeting_id":1,"race_number":1,"bets":[{"id":"a"},{"id":"b","x":{"y":[-1e309]}}]}', 'json', 2))[0]!,
    /^bets\[1\]: x\.y\[0\] is a number beyond/);
  assert.match(problems(() => readBets('{"meeting_id":1,"race_number":1,"id":"a","amount":1e400}\n', 'ndjson', 2))[0]!, /^line 1: amount is a number beyond/);
  assert.equal(readBets('[{"meeting_id":1,"race_number":1,"id":"a","amount":1.7e308}]', 'json', 2)[0]!.bet.amount, 1.7e308);
});

test('the example files parse and group by race', () => {
  const csv = readBets(readFileSync(path.join(examples, 'bets-sample.csv'), 'utf8'), 'csv', 2);
  const nd = readBets(readFileSync(path.join(examples, 'bets-sample.ndjson'), 'utf8'), 'ndjson', 2);
  assert.equal(csv.length, 7);
  assert.equal(nd.length, 6);
  assert.deepEqual(toBatches(csv).map((b) => [b.meetingId, b.raceNumber, b.bets.length]), [['1234567', 6, 1], ['1234567', 7, 6]]);
  assert.equal(csv[3]!.bet.exotics_selection, '1, 2, 3, 8 (BOXED)');
});

test('format from the extension, else sniffed from the content', () => {
  assert.equal(detectFormat('x.CSV', '{'), 'csv');
  assert.equal(detectFormat('x.jsonl', '['), 'ndjson');
  assert.equal(detectFormat('-', '[{"a":1}]'), 'json');
  assert.equal(detectFormat('-', '{"a":1}\n{"a":2}\n'), 'ndjson');
  assert.equal(detectFormat('-', 'meeting_id,race_number\n'), 'csv');
});

test('batches: one race each, at most 1,000 bets, races in first-seen order, bets in file order', () => {
  const bets: FileBet[] = [];
  for (let i = 0; i < 2500; i++) bets.push({ meetingId: '1', raceNumber: 1 + (i % 2 === 0 ? 0 : 1) * (i < 10 ? 1 : 0), bet: { id: `b${i}` }, at: `line ${i + 1}` });
  const batches = toBatches(bets);
  assert.deepEqual(batches.map((b) => [b.raceNumber, b.bets.length]), [[1, 1000], [1, 1000], [1, 495], [2, 5]]);
  assert.equal(batches[0]!.bets[1]!.id, 'b2');
  assert.equal(batches[3]!.at[0], 'line 2');
  assert.deepEqual(JSON.parse(requestBody(batches[3]!)).meeting_id, 1);
  assert.throws(() => toBatches(bets, MAX_BATCH + 1), RangeError);
});

test('property: batching keeps every bet exactly once, within size, grouped by race', () => {
  fc.assert(fc.property(
    fc.array(fc.record({ m: fc.integer({ min: 1, max: 3 }), r: fc.integer({ min: 1, max: 3 }) }), { maxLength: 300 }),
    fc.integer({ min: 1, max: 50 }),
    (rows, size) => {
      const bets = rows.map((row, i) => ({ meetingId: String(row.m), raceNumber: row.r, bet: { id: i }, at: `line ${i}` }));
      const batches = toBatches(bets, size);
      const ids = batches.flatMap((b) => b.bets.map((bet) => bet.id as number));
      assert.deepEqual([...ids].sort((a, b) => a - b), bets.map((_, i) => i));
      for (const batch of batches) {
        assert.ok(batch.bets.length >= 1 && batch.bets.length <= size);
        for (const bet of batch.bets) {
          const row = rows[bet.id as number]!;
          assert.deepEqual([String(row.m), row.r], [batch.meetingId, batch.raceNumber]);
        }
      }
    },
  ));
});

test('token endpoint: --auth-url as is when it ends in /token, else /oauth/token appended', () => {
  assert.equal(tokenEndpoint('https://auth.example/token'), 'https://auth.example/token');
  assert.equal(tokenEndpoint('https://auth.example/v2/oauth2/token/'), 'https://auth.example/v2/oauth2/token/');
  assert.equal(tokenEndpoint('http://127.0.0.1:8080'), 'http://127.0.0.1:8080/oauth/token');
  assert.equal(tokenEndpoint('http://127.0.0.1:8080/auth/'), 'http://127.0.0.1:8080/auth/oauth/token');
  assert.equal(basicCredentials('id 1', 'p:w'), `Basic ${Buffer.from('id+1:p%3Aw').toString('base64')}`);
});

test('backoff doubles per retry with jitter in [half, full], capped; Retry-After as seconds or HTTP date', () => {
  for (let retry = 0; retry < 10; retry++) {
    const full = Math.min(DEFAULT_POLICY.maxMs, DEFAULT_POLICY.baseMs * 2 ** retry);
    assert.equal(backoffMs(retry, DEFAULT_POLICY, () => 0), full / 2);
    assert.equal(backoffMs(retry, DEFAULT_POLICY, () => 0.999999), Math.round(full / 2 + 0.999999 * (full / 2)));
  }
  const now = new Date('2025-01-01T00:00:00Z');
  assert.equal(retryAfterMs('7', now), 7000);
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:30 GMT', now), 30000);
  assert.equal(retryAfterMs('soon', now), undefined);
  assert.equal(retryAfterMs(null, now), undefined);
  // The obsolete forms of RFC 9110 §5.6.7, both GMT; a date past is no wait.
  assert.equal(retryAfterMs('Wednesday, 01-Jan-25 00:01:00 GMT', now), 60_000);
  assert.equal(retryAfterMs('Wed Jan  1 00:00:45 2025', now), 45_000);
  assert.equal(retryAfterMs('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
  // Text Date.parse would read as some date long past (no wait at all): none is an HTTP-date.
  for (const bad of ['1.5', '-5', '+5', 'soon 3', '120, 5', '1 2', '', 'Wed, 31 Feb 2025 00:00:00 GMT', 'Wed, 01 Jan 2025 25:00:00 GMT', '2025-01-01T00:01:00Z']) {
    assert.equal(retryAfterMs(bad, now), undefined, JSON.stringify(bad));
  }
});

test('the same bet twice, in one race or in two, is refused with both places; as two legs it is two rows', () => {
  const row = (race: number, id: string, leg?: number) => JSON.stringify({ meeting_id: 1, race_number: race, id, source: 'TAB', ...(leg && { leg }) });
  const file = [row(1, 'a'), row(1, 'b'), row(1, 'a'), row(2, 'b'), row(1, 'b', 2)].join('\n');
  assert.deepEqual(problems(() => readBets(file, 'ndjson', 2)), [
    'line 3: the same bet as line 1 (source, id and leg in one race); a file holds each bet once, in its latest state',
    'line 4: the same bet as line 2 (source, id and leg in race 1/1 and race 1/2); a file holds each bet once, in its latest state',
  ]);
  assert.equal(readBets([row(1, 'a'), row(2, 'a', 2), row(1, 'b')].join('\n'), 'ndjson', 2).length, 3);
});

test('the same bet with its source in another case, with spaces or empty is still the same bet (the service trims, upper-cases and defaults it)', () => {
  const row = (race: number, source?: string) => JSON.stringify({ meeting_id: 1, race_number: race, id: 'a', ...(source !== undefined && { source }) });
  assert.deepEqual(problems(() => readBets([row(1, 'TAB'), row(2, ' tab\u00a0')].join('\n'), 'ndjson', 2)), [
    'line 2: the same bet as line 1 (source, id and leg in race 1/1 and race 1/2); a file holds each bet once, in its latest state',
  ]);
  assert.equal(problems(() => readBets([row(1), row(2, '')].join('\n'), 'ndjson', 2)).length, 1);
  assert.equal(readBets([row(1, 'TAB'), row(2, 'NSW')].join('\n'), 'ndjson', 2).length, 2);
});

test('CSV: a bet\'s row is the line its record starts on, blank lines and multi-line cells counted (a rejected bet is found where it is)', () => {
  const csv = 'meeting_id,race_number,id,exotics_selection\r\n1,1,a,\r\n\r\n1,1,b,"1,\r\n2"\r\n1,1,c,\r\n';
  assert.deepEqual(readBets(csv, 'csv', 2).map((b) => b.at), ['row 2', 'row 4', 'row 6']);
  assert.deepEqual(problems(() => readBets('meeting_id,race_number,id\n\n1,,x\n', 'csv', 2)), ['row 3: race_number is missing']);
});

test('a file longer than the longest string Node can hold is refused as too large, not as "not UTF-8" at its end', () => {
  const huge = Buffer.allocUnsafe(constants.MAX_STRING_LENGTH + 1); // never filled: only its length is read
  assert.deepEqual(problems(() => decodeBetsFile(huge)), [
    `the file is ${huge.length} bytes: at most ${constants.MAX_STRING_LENGTH} can be read (the client reads a file whole, to group it by race); split it, e.g. by meeting or day`,
  ]);
});
