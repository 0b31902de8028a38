// Property tests of the value rules: timestamps and the exotics grammar.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkSelection, parseSelection } from './selection.ts';
import { parseInstant } from './values.ts';

test('timestamps: offsets are applied; the normalised text keeps sub-milliseconds', () => {
  assert.equal(parseInstant('2024-05-01T13:45:12+10:00')!.ms, Date.parse('2024-05-01T03:45:12Z'));
  assert.equal(parseInstant('2024-05-01T13:45:12.5-0330')!.ms, Date.parse('2024-05-01T17:15:12.5Z'));
  assert.equal(parseInstant('2024-05-01T13:45:12.123456Z')!.text, '2024-05-01T13:45:12.123456+00:00');
  assert.equal(parseInstant('2024-02-29T00:00+10')!.text, '2024-02-29T00:00:00+10:00');
  for (const bad of ['2023-02-29T00:00:00Z', '2024-05-01', '2024-05-01T13:45:12', '2024-05-01T13:45:12+15:00', '2024-13-01T00:00:00Z', ' 2024-05-01T00:00:00Z']) {
    assert.equal(parseInstant(bad), undefined, bad);
  }
});

const runner = fc.integer({ min: 1, max: 9999 });
const space = fc.constantFrom('', ' ', '  ');
const group = fc.uniqueArray(runner, { minLength: 1, maxLength: 8 });

test('exotics grammar: any well-formed selection parses to its groups, whitespace and case aside', () => {
  fc.assert(fc.property(fc.array(group, { minLength: 1, maxLength: 4 }), fc.boolean(), space, space, (groups, boxed, s1, s2) => {
    const text = groups.map((g) => g.join(`${s1},${s2}`)).join(`${s2}/${s1}`) + (boxed ? `${s1}(${s2}BoXeD${s2})` : '');
    const parsed = parseSelection(text);
    assert.ok(typeof parsed !== 'string', `${text}: ${parsed}`);
    assert.deepEqual(parsed.groups, groups);
    assert.equal(parsed.boxed, boxed);
    assert.equal(parsed.canonical, groups.map((g) => g.join(',')).join('/') + (boxed ? '(BOXED)' : ''));
    assert.deepEqual(parseSelection(parsed.canonical), parsed); // canonical form is a fixed point
  }));
});

test('exotics grammar: a runner twice in one position is always refused', () => {
  fc.assert(fc.property(group, runner, (g, dup) => {
    const text = [...g, dup, dup].join(',');
    assert.equal(typeof parseSelection(text), 'string');
  }));
});

test('exotics counts: an n-position selection fits exactly the types of n positions', () => {
  const positions = { exacta: 2, quinella: 2, trifecta: 3, firstfour: 4, dailydouble: 2, quaddie: 4 } as const;
  fc.assert(fc.property(fc.array(group, { minLength: 2, maxLength: 5 }), fc.constantFrom(...Object.keys(positions) as Array<keyof typeof positions>), (groups, type) => {
    const parsed = parseSelection(groups.map((g) => g.join(',')).join('/'));
    assert.ok(typeof parsed !== 'string');
    assert.equal(checkSelection(type, parsed) === undefined, groups.length === positions[type]);
  }));
});
