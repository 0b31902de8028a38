// Where a repeated key is, as an upload's error names it: the scan reads the text, and the parsed
// value keeps the last of repeated keys. A repeat inside a first "bets" replaced by "bets": null
// once answered 500; an empty object in an array once made the next string of that array a key,
// and the error named a valid bet. The property checks the path against one found on the tree the
// text was written from (escaped keys, keys with ':', '"' or '\\', exponents, whitespace).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { duplicateKeyPath } from '../src/modules/intake/duplicate-keys.ts';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let op: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  op = await seedClient(ctx, { agencies: ['TAB'] });
});
after(() => ctx.close());

const post = (payload: string, type = 'application/json') =>
  ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', payload, headers: { 'content-type': type, ...op.auth } });

test('a repeated key inside a first "bets" followed by "bets": null is a 400, not a 500', async () => {
  const res = await post('{"meeting_id":9301,"race_number":1,"bets":[{"amount":1,"amount":2}],"bets":null}');
  assert.equal(res.statusCode, 400, res.body);
});

test('a repeated key with charset=utf-8 or an upper-case media type is refused as with plain application/json', async () => {
  const bet = JSON.stringify(buildBet({ id: 'RF-1', amount: 10 })).replace('"amount":10', '"amount":10,"amount":1000');
  for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
    const res = await post(`{"meeting_id":9302,"race_number":1,"bets":[${bet}]}`, type);
    assert.deepEqual([res.statusCode, res.json().errors?.[0]?.field], [400, 'bets/0/amount'], `${type}: ${res.body}`);
  }
});

test('the repeated key is named where it is, also after an empty object in an array', async () => {
  const first = { ...buildBet({ id: 'RF-2' }), extra: [{}, 'k', 'k'] };
  const second = JSON.stringify(buildBet({ id: 'RF-3', amount: 10 })).replace('"amount":10', '"amount":10,"amount":1000');
  const res = await post(`{"meeting_id":9303,"race_number":1,"bets":[${JSON.stringify(first)},${second}]}`);
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(res.json().errors.map((e: any) => [e.index, e.id, e.field]), [[1, 'RF-3', 'bets/1/amount']]);
});

// Reference: a tree of [key, value] pairs written as text; its first repeated key in document order.
type T = { o: Array<[string, string, T]> } | { a: T[] } | { s: string } | { n: string };
const keyArb = fc.constantFrom('a', 'b', 'x:y', 'q"', 'b\\', 'é', '1', '01', 'constructor', '').chain((k) =>
  fc.boolean().map((esc) => [k, esc ? JSON.stringify(k).slice(1, -1).replace(/[a-z]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : JSON.stringify(k).slice(1, -1)] as [string, string]));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' },
    fc.record({ s: fc.constantFrom('x', 'a', ':', '"', '\\', '{', '}', ',') }),
    fc.record({ n: fc.constantFrom('1', '-2.5e+3', '1E-2') }),
    fc.record({ a: fc.array(tie('tree') as fc.Arbitrary<T>, { maxLength: 4 }) }),
    fc.array(fc.tuple(keyArb, tie('tree') as fc.Arbitrary<T>), { maxLength: 4 }).map((ps) => ({ o: ps.map(([[k, sp], v]) => [k, sp, v] as [string, string, T]) })),
  ),
}));
const text = (t: T): string => ('s' in t ? JSON.stringify(t.s) : 'n' in t ? t.n : 'a' in t ? `[ ${t.a.map(text).join(' , ')} ]`
  : `{ ${t.o.map(([, sp, v]) => `"${sp}" : ${text(v)}`).join(' , ')} }`);
function firstRepeat(t: T, path: string[]): string[] | undefined {
  if ('a' in t) { for (const [i, v] of t.a.entries()) { const r = firstRepeat(v, [...path, String(i)]); if (r) return r; } }
  if ('o' in t) {
    const seen = new Set<string>();
    for (const [k, , v] of t.o) {
      if (seen.has(k)) return [...path, k];
      seen.add(k);
      const r = firstRepeat(v, [...path, k]); if (r) return r;
    }
  }
  return undefined;
}

test('property: duplicateKeyPath agrees with a reference on any JSON text', () => {
  fc.assert(fc.property(tree, (t) => {
    const s = text(t);
    assert.deepEqual(duplicateKeyPath(s, JSON.parse(s)), firstRepeat(t, []), s);
  }), { numRuns: 20000 });
});
