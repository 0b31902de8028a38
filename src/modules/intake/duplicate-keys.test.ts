import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { duplicateKeyPath, firstDuplicateKey } from './duplicate-keys.ts';

test('no key twice: undefined, whatever the nesting, strings and escapes', () => {
  for (const text of [
    '{}', '[]', '1', '"a"', 'null', '{"a":1,"b":{"a":2,"b":[{"a":3},{"a":4}]}}',
    '[{"a":1},{"a":1}]', // the same key in two objects is fine
    '{"a":"\\"a\\":1,","b":"}{[],"}', // structure characters inside strings
    '{"a\\\\":1,"a":2}', // "a\" and "a" differ
    ' { "a" : [ 1 , { } ] , "b" : { } } ',
  ]) assert.equal(firstDuplicateKey(text), undefined, text);
});

test('a key twice: the path to the second, from the root', () => {
  const cases: Array<[string, string[]]> = [
    ['{"a":1,"a":2}', ['a']],
    ['{"bets":[1],"x":0,"bets":[2]}', ['bets']],
    ['{"meeting_id":1,"bets":[{"id":"x","amount":1},{"id":"y","amount":1,"amount":2}]}', ['bets', '1', 'amount']],
    ['{"a":{"b":[[0,{"c":1,"d":2,"c":3}]]}}', ['a', 'b', '0', '1', 'c']],
    // Compared as decoded: an escaped spelling of the same key is the same key.
    ['{"amount":1,"\\u0061mount":2}', ['amount']],
    ['{"a\\"b":1,"a\\u0022b":2}', ['a"b']],
    // The first repeat in the text, not the deepest.
    ['{"x":{"y":1,"y":2},"x":3}', ['x', 'y']],
  ];
  for (const [text, path] of cases) {
    assert.deepEqual(firstDuplicateKey(text), path, text);
    assert.deepEqual(duplicateKeyPath(text, JSON.parse(text)), path, text);
  }
});

test('the cheap check: keys written in the text against keys JSON.parse kept', () => {
  for (const text of ['{"a":"x:y","b":{"c":[1,{"d":":"}]}}', '[{"a":1},{"a":1}]', '{"a\\\\":1,"a":2}', '{}']) {
    assert.equal(duplicateKeyPath(text, JSON.parse(text)), undefined, text);
  }
  // A repeat whose first value held keys of its own: the count differs all the more.
  const text = '{"a":{"b":1,"c":2},"a":3}';
  assert.deepEqual(duplicateKeyPath(text, JSON.parse(text)), ['a']);
});

test('deep nesting is scanned without recursion', () => {
  const deep = `${'['.repeat(100_000)}{"a":1,"a":2}${']'.repeat(100_000)}`;
  assert.equal(firstDuplicateKey(deep)?.length, 100_001);
  assert.equal(firstDuplicateKey(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`), undefined);
});

test('property: JSON.stringify never repeats a key; adding a key again is found at its path', () => {
  fc.assert(fc.property(fc.jsonValue(), fc.string(), (value, key) => {
    const text = JSON.stringify(value);
    assert.equal(firstDuplicateKey(text), undefined, text);
    const twice = `{${JSON.stringify(key)}:${text},"z":[${text}],${JSON.stringify(key)}:0}`;
    assert.equal(duplicateKeyPath(text, value), undefined, text);
    const found = duplicateKeyPath(twice, JSON.parse(twice));
    // A repeat inside the value comes first; none there means the outer key is found.
    assert.deepEqual(found, key === 'z' ? ['z'] : [key], twice);
  }), { numRuns: 300 });
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
