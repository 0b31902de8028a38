// The settlement jobs a run picks: the oldest pending, but never those that failed earlier in the
// same run — failing jobs must not fill the page and hide newer races (docs/settlement-running.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { insertJob, pendingJobs } from './settlement.queries.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

test('pendingJobs: oldest first, a page at a time, skipping the jobs named', async () => {
  const now = new Date();
  const ids = [];
  for (const race of [1, 2, 3, 4]) ids.push(await insertJob(db.pool, 990101, race, 'result', now));
  assert.deepEqual(await pendingJobs(db.pool, [], 2), ids.slice(0, 2));
  assert.deepEqual(await pendingJobs(db.pool, ids.slice(0, 2), 2), ids.slice(2, 4), 'two failed jobs do not hide the next two');
  assert.deepEqual(await pendingJobs(db.pool, ids), []);
});
