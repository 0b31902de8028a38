// Table-driven tests of every upload rule (docs/upload.md), without a database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { arrayLiteral } from './versions.queries.ts';
import type { ValidationContext } from './batch.ts';
import { validateBatch } from './validate-batch.ts';

const NOW = new Date('2024-05-02T00:00:00Z');
const STATES = new Set(['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'ACT']);
const ctx = (over: Partial<ValidationContext> = {}): ValidationContext =>
  ({ version: 2, agencies: ['TAB'], currency: 'AUD', userStates: STATES, now: NOW, timezone: 'UTC', ...over });

function check(bet: Record<string, unknown>, c: ValidationContext = ctx()) {
  return validateBatch({ meeting_id: 1, race_number: 1, bets: [bet] }, c);
}

/** [name, bet overrides, field that must be reported (undefined: valid), message pattern] */
type Row = [string, Record<string, unknown>, string | undefined, RegExp?];
const exotic = (type: string, sel: unknown): Record<string, unknown> => ({ type, runner_number: undefined, exotics_selection: sel });
const rows: Row[] = [
  ['a plain win bet is valid', {}, undefined],
  // type and status
  ['type is required', { type: undefined }, 'type', /required/],
  ['type must be a known type', { type: 'each-way' }, 'type', /one of win, place/],
  ['type matches case-insensitively', { type: 'WIN' }, undefined],
  ['status is required', { status: undefined }, 'status', /required/],
  ['status must be a known status', { status: 'Won' }, 'status', /Paid, Cancelled/],
  ['status matches case-insensitively', { status: 'fullrefund' }, undefined],
  // runner_number xor exotics_selection
  ['runner_number and exotics_selection together', { exotics_selection: '1' }, 'exotics_selection', /not both/],
  ['neither runner_number nor exotics_selection', { runner_number: undefined }, 'runner_number', /required/],
  ['runner_number must be positive', { runner_number: 0 }, 'runner_number', /integer from 1/],
  ['runner_number must be an integer', { runner_number: 2.5 }, 'runner_number', /integer from 1/],
  ['runner_number as a string is refused', { runner_number: '4' }, 'runner_number', /integer/],
  ['runner_number above 9999', { runner_number: 10000 }, 'runner_number', /1 to 9999/],
  ['runner_number null with a selection is "not given"', { ...exotic('exacta', '1/2'), runner_number: null }, undefined],
  ['exotics_selection "" with a runner is "not given"', { exotics_selection: '' }, undefined],
  ['a multi leg takes runner_number', exotic('multi', '4'), 'exotics_selection', /takes runner_number/],
  ['a win bet takes runner_number, not a selection', exotic('win', '4'), 'exotics_selection', /takes runner_number/],
  ['an exacta takes a selection, not runner_number', { type: 'exacta', runner_number: 4 }, 'runner_number', /takes exotics_selection/],
  // exotics grammar and per-type counts
  ['exacta 2 positions', exotic('exacta', '1/2'), undefined],
  ['exacta with spaces and several runners', exotic('exacta', ' 1, 2 / 3 , 4 '), undefined],
  ['exacta with 3 positions', exotic('exacta', '1/2/3'), 'exotics_selection', /2 positions/],
  ['exacta boxed', exotic('exacta', '1,2,3(BOXED)'), undefined],
  ['boxed suffix with a space and lower case', exotic('exacta', '1, 2 (boxed)'), undefined],
  ['boxed exacta with one runner', exotic('exacta', '5(BOXED)'), 'exotics_selection', /at least 2 runners/],
  ['boxed with positions', exotic('trifecta', '1/2/3(BOXED)'), 'exotics_selection', /one group/],
  ['quinella 2 positions', exotic('quinella', '1/2'), undefined],
  ['quinella one group (unordered)', exotic('quinella', '1,2,3'), undefined],
  ['quinella one runner', exotic('quinella', '1'), 'exotics_selection', /2 positions/],
  ['trifecta 3 positions', exotic('trifecta', '1/2,3/4'), undefined],
  ['trifecta 2 positions', exotic('trifecta', '1/2'), 'exotics_selection', /3 positions/],
  ['boxed trifecta with 2 runners', exotic('trifecta', '1,2(BOXED)'), 'exotics_selection', /at least 3/],
  ['firstfour 4 positions', exotic('firstfour', '1/2/3/4'), undefined],
  ['firstfour boxed 5 runners', exotic('firstfour', '1,2,3,4,5 (BOXED)'), undefined],
  ['firstfour 3 positions', exotic('firstfour', '1/2/3'), 'exotics_selection', /4 positions/],
  ['dailydouble 2 legs', exotic('dailydouble', '1,2/7'), undefined],
  ['dailydouble 3 legs', exotic('dailydouble', '1/2/3'), 'exotics_selection', /2 legs/],
  ['dailydouble boxed', exotic('dailydouble', '1,2(BOXED)'), 'exotics_selection', /only allowed on exacta/],
  ['quaddie 4 legs', exotic('quaddie', '1,2/3/4,5,6/7'), undefined],
  ['quaddie 3 legs', exotic('quaddie', '1/3/4'), 'exotics_selection', /4 legs/],
  ['quaddie boxed', exotic('quaddie', '1,2,3,4(BOXED)'), 'exotics_selection', /only allowed/],
  ['runner twice in one position', exotic('exacta', '1,1/2'), 'exotics_selection', /runner 1 twice/],
  ['same runner in different positions is fine', exotic('exacta', '1,2/1,2'), undefined],
  ['runner 0 in a selection', exotic('exacta', '0/1'), 'exotics_selection', /runner number/],
  ['letters in a selection', exotic('exacta', '1/a'), 'exotics_selection', /runner number/],
  ['empty position', exotic('exacta', '1//2'), 'exotics_selection', /empty runner/],
  ['trailing comma', exotic('exacta', '1,/2'), 'exotics_selection', /empty runner/],
  ['only (BOXED)', exotic('exacta', '(BOXED)'), 'exotics_selection', /no runners/],
  ['selection not a string', exotic('exacta', 12), 'exotics_selection', /must be a string/],
  // leg
  ['multi leg 3', { type: 'multi', leg: 3 }, undefined],
  ['leg 0', { type: 'multi', leg: 0 }, 'leg', /from 1/],
  ['leg not an integer', { type: 'multi', leg: '2' }, 'leg', /integer/],
  ['win with leg 2', { leg: 2 }, 'leg', /must be 1 for a win/],
  ['quaddie repeated per race, leg 4', { ...exotic('quaddie', '1/2/3/4'), leg: 4 }, undefined],
  ['quaddie leg 5', { ...exotic('quaddie', '1/2/3/4'), leg: 5 }, 'leg', /legs 1 to 4/],
  ['dailydouble leg 3', { ...exotic('dailydouble', '1/2'), leg: 3 }, 'leg', /legs 1 to 2/],
  ['trifecta leg 2', { ...exotic('trifecta', '1/2/3'), leg: 2 }, 'leg', /must be 1 for a trifecta/],
  ['multi leg 100', { type: 'multi', leg: 100 }, 'leg', /1 to 99/],
  ['leg null defaults to 1', { leg: null }, undefined],
  // user_id and terminal_id
  ['user_id is required', { user_id: undefined }, 'user_id', /required/],
  ['user_id empty', { user_id: '  ' }, 'user_id', /required/],
  ['user_id as an integer is accepted', { user_id: 881 }, undefined],
  ['cash needs terminal_id', { user_id: 'cash' }, 'terminal_id', /required when user_id is "cash"/],
  ['Anonymous needs terminal_id', { user_id: 'Anonymous' }, 'terminal_id', /required/],
  ['anonymous with a blank terminal_id', { user_id: 'anonymous', terminal_id: '  ' }, 'terminal_id', /required/],
  ['terminal_id as an integer is accepted', { user_id: 'cash', terminal_id: 42 }, undefined],
  ['user_id too long', { user_id: 'u'.repeat(101) }, 'user_id', /at most 100/],
  ['user_id as a fraction', { user_id: 1.5 }, 'user_id', /string or an integer/],
  ['anon with a terminal', { user_id: 'anon', terminal_id: 'T-1' }, undefined],
  ['CASH with a terminal (any case)', { user_id: 'CASH', terminal_id: 'T-1' }, undefined],
  ['an account with a terminal', { user_id: '12345', terminal_id: 'T1' }, 'user_id', /cash, anon or anonymous when terminal_id is given, got "12345"/],
  ['an integer account with a terminal', { user_id: 881, terminal_id: 42 }, 'user_id', /when terminal_id is given/],
  ['an account with a blank terminal_id is fine', { user_id: '12345', terminal_id: '  ' }, undefined],
  ['an account with terminal_id null is fine', { user_id: '12345', terminal_id: null }, undefined],
  ['anonymity is the whole value, not a prefix', { user_id: 'cash-7', terminal_id: 'T1' }, 'user_id', /when terminal_id is given/],
  ['user_name too long', { user_name: 'x'.repeat(201) }, 'user_name', /at most 200/],
  ['control characters in text', { medium: 'inter\u0000net' }, 'medium', /control/],
  ['unpaired surrogate in text', { user_name: 'Zo\ud800' }, 'user_name', /unpaired surrogate/],
  ['info_type too long', { info_type: 'x'.repeat(101) }, 'info_type', /at most 100/],
  ['bet_back_agency too long', { bet_back_agency: 'x'.repeat(101) }, 'bet_back_agency', /at most 100/],
  ['medium not a string', { medium: 3 }, 'medium', /must be a string/],
  // user_state
  ['user_state lower case', { user_state: 'vic' }, undefined],
  ['user_state unknown', { user_state: 'XYZ' }, 'user_state', /not one of NSW/],
  ['user_state outside a configured list', { user_state: 'NSW' }, 'user_state', /not one of/],
  // time and bet_back_date
  ['time is required', { time: undefined }, 'time', /required/],
  ['time without offset', { time: '2024-05-01T13:45:00' }, 'time', /UTC offset/],
  ['time with Z', { time: '2024-05-01T03:45:00Z' }, undefined],
  ['time with +1000 offset', { time: '2024-05-01T13:45:00.123456+1000' }, undefined],
  ['time on 30 February', { time: '2024-02-30T10:00:00+10:00' }, 'time', /ISO 8601/],
  ['time at 24:00', { time: '2024-05-01T24:00:00+10:00' }, 'time', /ISO 8601/],
  ['time as a number', { time: 1714535100 }, 'time', /ISO 8601/],
  ['time in the future', { time: '2024-05-02T10:00:00Z' }, 'time', /future/],
  ['bet_back_date without offset', { bet_back_date: '2024-05-01 13:45' }, 'bet_back_date', /ISO 8601/],
  ['bet_back_date with an offset', { bet_back_date: '2024-05-01T13:50:00+10:00' }, undefined],
  ['bet_back_date in the future', { bet_back_date: '2024-05-03T00:00:00Z' }, 'bet_back_date', /future/],
  ['time within the clock skew', { time: '2024-05-02T00:04:00Z' }, undefined],
  // money
  ['amount is required', { amount: undefined }, 'amount', /required/],
  ['amount negative', { amount: -1 }, 'amount', /negative/],
  ['amount as a string', { amount: '10.00' }, 'amount', /JSON number/],
  ['price negative', { price: -0.5 }, 'price', /negative/],
  ['payout negative', { payout: -1 }, 'payout', /negative/],
  ['net_result negative is fine', { net_result: -25 }, undefined],
  ['bet_back_amount negative', { bet_back_amount: -2 }, 'bet_back_amount', /negative/],
  ['bet_back_revenue negative', { bet_back_revenue: -2 }, 'bet_back_revenue', /negative/],
  ['amount too large', { amount: 1e12 }, 'amount', /below/],
  ['amount zero is allowed', { amount: 0, payout: 0, net_result: 0 }, undefined],
  ['amount as a boolean', { amount: true }, 'amount', /JSON number/],
  ['net_result too large', { net_result: -1e12 }, 'net_result', /below/],
  ['bet_back_amount and revenue given', { back_indicator: true, bet_back_amount: 20, bet_back_revenue: 0 }, undefined],
  // booleans
  ['bonus as a string', { bonus: 'true' }, 'bonus', /true or false/],
  ['resulted as 1', { resulted: 1 }, 'resulted', /true or false/],
  ['back_indicator null is default', { back_indicator: null }, undefined],
  // currency
  ['currency lower case', { currency: 'nzd' }, undefined],
  ['currency unknown', { currency: 'XYZ' }, 'currency', /ISO 4217/],
  ['currency not 3 letters', { currency: 'AUDD' }, 'currency', /ISO 4217/],
  ['currency not a string', { currency: 36 }, 'currency', /ISO 4217/],
  ['currency withdrawn (the lev, since 2026-01)', { currency: 'BGN' }, 'currency', /must be an active ISO 4217 currency code such as "AUD", got "BGN"/],
  ['currency new in 2025 (the Caribbean guilder)', { currency: 'XCG' }, undefined],
  // ids
  ['V2 id empty', { id: '' }, 'id', /1 to 64/],
  ['V2 id too long', { id: 'x'.repeat(65) }, 'id', /1 to 64/],
  ['V2 id integer', { id: 12 }, 'id', /uploadRace\)/],
  ['V2 id with a control character', { id: 'a\tb' }, 'id', /control characters/],
  ['V2 id with an unpaired surrogate', { id: 'a\udfff' }, 'id', /unpaired surrogate/],
  ['V2 id of 64 characters', { id: 'x'.repeat(64) }, undefined],
  ['id missing', { id: undefined }, 'id', /required/],
  ['bet_back_id as a fraction', { bet_back_id: 1.5 }, 'bet_back_id', /string or an integer/],
  ['bet_back_id integer or string', { bet_back_id: 9981 }, undefined],
  // source
  ['source defaults for a single agency', { source: undefined }, undefined],
  ['source case-insensitive', { source: 'tab' }, undefined],
  ['unknown source', { source: 'XBET' }, 'source', /not one of this client's agencies/],
  ['source not a string', { source: 7 }, 'source', /must be a string/],
];

for (const [name, over, field, message] of rows) {
  test(`rule: ${name}`, () => {
    const c = name.includes('configured list') ? ctx({ userStates: new Set(['VIC']) }) : ctx();
    const result = check(buildBet(over), c);
    if (field === undefined) {
      assert.ok(result.ok, `expected valid, got ${JSON.stringify(!result.ok && result.errors)}`);
      return;
    }
    assert.ok(!result.ok, 'expected an error');
    const error = result.errors.find((e) => e.field === `bets/0/${field}`);
    assert.ok(error, `no error on bets/0/${field}: ${JSON.stringify(result.errors)}`);
    assert.equal(error.index, 0);
    if (message) assert.match(error.message, message);
  });
}

test('V1 ids are JSON integers within 2^53', () => {
  assert.ok(check(buildBet({ id: 123 }), ctx({ version: 1 })).ok);
  for (const id of ['123', -1, 1.5, 2 ** 53]) {
    const r = check(buildBet({ id }), ctx({ version: 1 }));
    assert.ok(!r.ok && r.errors[0]!.field === 'bets/0/id', `id ${id}`);
  }
});

test('source is required when the client has several agencies, and refused when it has none', () => {
  const several = check(buildBet({ source: undefined }), ctx({ agencies: ['TAB', 'XBET'] }));
  assert.ok(!several.ok && /several agencies \(TAB, XBET\)/.test(several.errors[0]!.message));
  assert.ok(check(buildBet({ source: 'xbet' }), ctx({ agencies: ['TAB', 'XBET'] })).ok);
  const none = check(buildBet({ source: undefined }), ctx({ agencies: [] }));
  assert.ok(!none.ok && /no agencies/.test(none.errors[0]!.message));
});

test('meeting_id and race_number take integers or digit strings', () => {
  const ok = (m: unknown, r: unknown) => validateBatch({ meeting_id: m, race_number: r, bets: [buildBet()] }, ctx());
  const good = ok('1234567', '7');
  assert.ok(good.ok && good.meetingId === 1234567 && good.raceNumber === 7);
  for (const [m, r, field] of [['12a', 1, 'meeting_id'], [0, 1, 'meeting_id'], [1.5, 1, 'meeting_id'], [null, 1, 'meeting_id'],
    [1, 0, 'race_number'], [1, 100, 'race_number'], [1, '-1', 'race_number'], [1, undefined, 'race_number']] as const) {
    const r2 = ok(m, r);
    assert.ok(!r2.ok && r2.errors.some((e) => e.field === field && e.index === null), `${m}/${r}`);
  }
});

test('bets must be an array of 1 to 1,000 objects', () => {
  for (const bets of [undefined, {}, [], Array(1001).fill(buildBet())]) {
    const r = validateBatch({ meeting_id: 1, race_number: 1, bets }, ctx());
    assert.ok(!r.ok && r.errors[0]!.field === 'bets');
  }
  const notObject = validateBatch({ meeting_id: 1, race_number: 1, bets: [buildBet(), 'x'] }, ctx());
  assert.ok(!notObject.ok && notObject.errors[0]!.field === 'bets/1');
  const body = validateBatch([buildBet()], ctx());
  assert.ok(!body.ok && /JSON object/.test(body.errors[0]!.message));
});

test('every invalid bet is listed, with its index and id', () => {
  const bets = [buildBet({ id: 'a' }), buildBet({ id: 'b', type: 'x' }), buildBet({ id: 'c' }), buildBet({ id: 'd', amount: -1, user_id: null })];
  const r = validateBatch({ meeting_id: 1, race_number: 1, bets }, ctx());
  assert.ok(!r.ok);
  assert.deepEqual(r.errors.map((e) => [e.index, e.id, e.field]), [[1, 'b', 'bets/1/type'], [3, 'd', 'bets/3/user_id'], [3, 'd', 'bets/3/amount']]);
});

test('a bet repeated in a batch (same source, id, leg) is an error; other legs are not', () => {
  const bets = [buildBet({ id: 'm', type: 'multi', leg: 1 }), buildBet({ id: 'm', type: 'multi', leg: 2 }), buildBet({ id: 'm', type: 'multi', leg: 1, source: 'tab' })];
  const r = validateBatch({ meeting_id: 1, race_number: 1, bets }, ctx());
  assert.ok(!r.ok);
  assert.deepEqual(r.errors.map((e) => [e.field, e.message]), [['bets/2/id', 'repeats bets/0 (same source, id and leg): a bet may appear once per batch']]);
});

test('stored values are canonical: status, type, state, selection, currency, money', () => {
  const r = check(buildBet({ type: 'Trifecta', runner_number: undefined, exotics_selection: ' 1, 2 ,3 ( boxed )', status: 'partialrefund',
    user_state: 'qld', currency: undefined, amount: 3.333333333333333, payout: 14.415, net_result: -11.0816666667 }));
  assert.ok(r.ok);
  const b = r.bets;
  assert.deepEqual([b.bet_type[0], b.exotics_selection[0], b.status[0], b.user_state[0], b.currency[0]], ['trifecta', '1,2,3(BOXED)', 'PartialRefund', 'QLD', 'AUD']);
  assert.deepEqual([b.amount[0], b.payout[0], b.net_result[0]], ['3.333333', '14.415', '-11.081667']);
  assert.deepEqual(r.warnings.map((w) => w.code).sort(), ['precision', 'precision', 'precision']);
  // The message says what was stored: 14.415 exactly, 3.333333333333333 rounded.
  const said = Object.fromEntries(r.warnings.map((w) => [w.field, w.message.split('; ')[1]]));
  assert.deepEqual(said, { 'bets/0/amount': 'stored rounded to 6 places', 'bets/0/payout': 'stored exactly', 'bets/0/net_result': 'stored rounded to 6 places' });
});

test('net_result that is not amount - payout on a Paid bet is a warning, not an error', () => {
  const r = check(buildBet({ amount: 10, payout: 35, net_result: 25 }));
  assert.ok(r.ok);
  assert.deepEqual(r.warnings.map((w) => w.code), ['net_result_mismatch']);
  // Exact in micro-units: 6 - 14.415 is -8.415 although 6 - 14.415 in floats is -8.415000000000001.
  const exact = check(buildBet({ type: 'multi', amount: 6, price: 1.55, payout: 14.415, net_result: -8.415 }));
  assert.ok(exact.ok);
  assert.deepEqual(exact.warnings.map((w) => [w.code, w.field]), [['precision', 'bets/0/payout'], ['precision', 'bets/0/net_result']]);
  // Not checked where amount - payout is not the operator's whole story: unsettled and bonus bets.
  for (const over of [{ status: 'Unresulted' }, { bonus: true }, { status: 'Cancelled' }]) {
    const r2 = check(buildBet({ amount: 10, payout: 35, net_result: 25, ...over }));
    assert.ok(r2.ok);
    assert.deepEqual(r2.warnings, [], JSON.stringify(over));
  }
});

test('array literals quote and escape text exactly as PostgreSQL reads it', () => {
  assert.equal(arrayLiteral(['a', null, 'b"c', 'd\\e', 'NULL', '{x,y}'], true), '{"a",NULL,"b\\"c","d\\\\e","NULL","{x,y}"}');
  assert.equal(arrayLiteral([1, null, '2.5', true, false], false), '{1,NULL,2.5,t,f}');
});

test('a time on 1899-12-31 in the operator\'s zone is refused (no report covers that racing day); 1900-01-01 there is fine', () => {
  const early = '1900-01-01T01:00:00+14:00'; // 1899-12-31T11:00Z: 21:04 in Sydney (local mean time then)
  const r = check(buildBet({ time: early }), ctx({ timezone: 'Australia/Sydney' }));
  assert.ok(!r.ok);
  assert.deepEqual(r.errors.map((e) => [e.field, e.message]), [['bets/0/time',
    'falls on 1899-12-31 in the operator\'s time zone (Australia/Sydney), before the first racing day reports cover (1900-01-01)']]);
  assert.ok(!check(buildBet({ time: early }), ctx()).ok, 'UTC when no zone is given');
  assert.ok(check(buildBet({ time: '1900-01-01T12:00:00+10:00' }), ctx({ timezone: 'Australia/Sydney' })).ok);
  assert.ok(check(buildBet({ time: early }), ctx({ timezone: 'Etc/GMT-14' })).ok, 'already 1900-01-01 at +14:00');
});

test('an unknown field\'s name is quoted short (at most 40 characters) in its warning\'s field and message', () => {
  const long = 'x'.repeat(100_000);
  const r = validateBatch({ meeting_id: 1, race_number: 1, bets: [{ ...buildBet(), [long]: 1, 'a/b~c': 2 }], ['y'.repeat(100_000)]: 1 }, ctx());
  assert.ok(r.ok);
  const unknown = r.warnings.filter((w) => w.code === 'unknown_field');
  assert.deepEqual(unknown.map((w) => w.field).sort(), ['bets/0/a~1b~0c', `bets/0/${'x'.repeat(40)}…`, `${'y'.repeat(40)}…`]);
  assert.ok(unknown.every((w) => w.message.length < 100), JSON.stringify(unknown.map((w) => w.message.length)));
});
