// isJsonText answers exactly as JSON.parse would, with or without its shortcut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isJsonText } from './graphql-source.ts';

const parses = (source: string) => {
  try {
    JSON.parse(source);
    return true;
  } catch {
    return false;
  }
};

test('isJsonText agrees with JSON.parse on any text, JSON with any leading space, and documents', () => {
  const space = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\ufeff', '\v'), { maxLength: 3 }).map((s) => s.join(''));
  const source = fc.oneof(
    fc.string(),
    fc.json(),
    fc.tuple(space, fc.json()).map(([s, j]) => s + j),
    fc.tuple(space, fc.constantFrom('mutation P { x }', '{ bet(id: 1) { id } }', '# c\n{ a }', 'true', 'nul', '-', '0x1')).map(([s, d]) => s + d),
  );
  fc.assert(fc.property(source, (s) => isJsonText(s) === parses(s)), { numRuns: 5000 });
  assert.equal(isJsonText('mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id } }'), false);
  assert.equal(isJsonText(' \n{"query": 1}'), true);
  assert.equal(isJsonText('\u00a0{}'), false, 'a space JSON does not skip');
});
