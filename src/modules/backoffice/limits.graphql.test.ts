import assert from 'node:assert/strict';
import { BET_FIELDS } from '../../../test/helpers/backoffice-fields.ts';
import { test } from 'node:test';
import { buildSchema, parse, validate } from 'graphql';
import { BACKOFFICE_SCHEMA } from './backoffice.schema.ts';
import { limitsRule, MAX_COST } from './limits.graphql.ts';

const schema = buildSchema(BACKOFFICE_SCHEMA);

const BET = BET_FIELDS;

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
