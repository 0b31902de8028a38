import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSchema, parse, validate } from 'graphql';
import { BACKOFFICE_SCHEMA } from './backoffice.schema.ts';
import { limitsRule, MAX_COST } from './limits.graphql.ts';

const schema = buildSchema(BACKOFFICE_SCHEMA);

const BET = `id created_at
  metadata { created_at tenant_id user_id account_id account_type ticket_id fixed_odds original_odds amount original_amount percentage
    original_percentage is_partial status source medium bet_limit_id reason reason_id message action_id liability_percentage liability
    is_fixed is_flexi is_boxed bet_type teller_id is_cashout is_livebet ip_address result payout refunded cash_out adjusted settled_at }
  legs { leg_number bet_type dividend event_id event_name event_time leg_type meeting_id meeting_name postions_paid positions_paid
    product_keyword sport_id sport_name race_number selections price }
  wallet_calls { sequence operation transaction_type amount transactionId status bonus created_at finished_at next_attempt_at
    last_http_status last_error note attempts { attempt at duration_ms http_status outcome error } }
  history { seq at from to cause detail }`;

function problems(query: string, limits?: { maxDepth: number; maxCost: number }) {
  return validate(schema, parse(query), [limitsRule(limits)]).map((e) => ({ code: e.extensions.code, cost: e.extensions.cost }));
}

const page = (limit: string) => `{ getBets(input: {tenant: {ids: ["t"]}${limit}}) { bets { ${BET} } pagination { last_id count has_more } } }`;

test('one page of every field fits, at the largest limit and with the limit in a variable', () => {
  assert.deepEqual(problems(page(', pagination: {limit: 1000}')), []);
  assert.deepEqual(problems(`query Q($input: GetBetsInput!) { getBets(input: $input) { bets { ${BET} } } }`), []);
  assert.deepEqual(problems(`mutation { cancelBet(bet: {id: "b", tenant_id: "t"}) { id wallet_calls { attempts { at } } bet { ${BET} } } }`), []);
});

test('two full pages, or a page of a field aliased many times, cost too much', () => {
  const two = `query Q($input: GetBetsInput!) { a: getBets(input: $input) { bets { ...B } } b: getBets(input: $input) { bets { ...B } } } fragment B on Bet { ${BET} }`;
  const [problem] = problems(two);
  assert.equal(problem?.code, 'QUERY_TOO_COSTLY');
  assert.ok((problem!.cost as number) > MAX_COST);
  const aliases = Array.from({ length: 20 }, (_, i) => `h${i}: history { at cause detail }`).join(' ');
  assert.deepEqual(problems(`{ getBets(input: {tenant: {ids: ["t"]}, pagination: {limit: 1000}}) { bets { ${aliases} } } }`).map((p) => p.code), ['QUERY_TOO_COSTLY']);
  assert.deepEqual(problems(`{ getBets(input: {tenant: {ids: ["t"]}, pagination: {limit: 10}}) { bets { ${aliases} } } }`), []);
});

test('depth: nested fields beyond the limit are refused, fragments counted where they are spread', () => {
  const deep = '{ getBets(input: {tenant: {ids: ["t"]}}) { bets { wallet_calls { attempts { at } } } } }';
  assert.deepEqual(problems(deep), []);
  assert.deepEqual(problems(deep, { maxDepth: 4, maxCost: MAX_COST }).map((p) => p.code), ['QUERY_TOO_DEEP']);
  const spread = '{ getBets(input: {tenant: {ids: ["t"]}}) { ...P } } fragment P on BetsPage { bets { wallet_calls { attempts { at } } } }';
  assert.deepEqual(problems(spread, { maxDepth: 4, maxCost: MAX_COST }).map((p) => p.code), ['QUERY_TOO_DEEP']);
});

test('a cycle of fragments ends the walk (GraphQL\'s own rules report it)', () => {
  const cyclic = '{ getBets(input: {tenant: {ids: ["t"]}}) { bets { ...A } } } fragment A on Bet { id ...B } fragment B on Bet { id ...A }';
  const errors = validate(schema, parse(cyclic), [limitsRule()]);
  assert.deepEqual(errors, []);
});
