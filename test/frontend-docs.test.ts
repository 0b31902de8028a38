// What docs/frontend.md and docs/betting.md promise a frontend developer matches what the API
// says: every refusal reason the code can give is in the table of reasons, and a myBets cursor
// refused names the field to pass back (endCursor, not another listing's next_cursor).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

test('every UserAuthReason is in the reasons table of docs/frontend.md', () => {
  const source = read('src/modules/auth/user-auth.headers.ts');
  const union = source.slice(source.indexOf('export type UserAuthReason'), source.indexOf(';', source.indexOf('export type UserAuthReason')));
  const reasons = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
  assert.ok(reasons.length > 15, 'the union was read');
  const doc = read('docs/frontend.md');
  const table = doc.slice(doc.indexOf('## Why a user is refused'), doc.indexOf('## dev-jwks'));
  assert.deepEqual(reasons.filter((r) => !table.includes(`| \`${r}\` |`)), []);
});

let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(770903);
});
after(() => f.close());

test('a myBets cursor that is not this user\'s endCursor is refused naming endCursor', async () => {
  await assert.rejects(f.services.betting.myBets(f.user(randomUUID()), 5, 'c1.abc.def'),
    (e: Error & { code?: string }) => e.code === 'bad_request' && /endCursor/.test(e.message) && !/next_cursor/.test(e.message));
});
