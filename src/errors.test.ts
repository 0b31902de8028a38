import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES } from './errors.ts';

test('docs/errors.md documents every error code with its status, and no others', () => {
  const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  const catalogue = new Map(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
  assert.deepEqual([...rows.entries()].sort(), [...catalogue.entries()].sort());
});
