import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshDatabase } from '../../test/helpers/db.ts';
import { migrate, pendingMigrations } from './migrate.ts';

test('two processes migrating one empty database at once: one applies, the other waits and finds nothing', async () => {
  const db = await freshDatabase({ empty: true });
  try {
    assert.ok((await pendingMigrations(db.pool)).includes('0001_foundation'));
    const [a, b] = await Promise.all([migrate(db.url), migrate(db.url)]);
    const applied = [...a.applied, ...b.applied].sort();
    const expected = (await import('node:fs')).readdirSync(new URL('./migrations/', import.meta.url)).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();
    assert.deepEqual(applied, expected, 'every migration applied exactly once');
    assert.deepEqual(await pendingMigrations(db.pool), []);
    assert.deepEqual((await migrate(db.url)).applied, []);
  } finally {
    await db.drop();
  }
});
