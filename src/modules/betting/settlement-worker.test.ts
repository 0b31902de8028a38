// The settlement worker's stop (serve's shutdown): it ends after the batch in progress, not after
// every queued race. A job left part-way stays queued at its last batch, which any process resumes
// (docs/settlement-running.md), so stopping between batches loses nothing and settles nothing twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { servicesOnFreshDatabase } from '../../../test/helpers/app.ts';
import type { TestDatabase } from '../../../test/helpers/db.ts';
import type { Services } from '../../services.ts';

let db: TestDatabase;
let services: Services;
let close: () => Promise<void>;
before(async () => {
  ({ db, services, close } = await servicesOnFreshDatabase());
});
after(() => close());

const pending = async () => (await db.pool.query("SELECT count(*)::int AS n FROM settlement_jobs WHERE status = 'pending'")).rows[0].n as number;

test('stop() returns after the batch in progress, leaving the other queued races for later', async () => {
  // A backlog: many races queued (a results feed catching up), each settled in its own transactions.
  await db.pool.query(`INSERT INTO settlement_jobs (meeting_id, race_number, cause, created_at)
                       SELECT 990000 + n / 10, n % 10 + 1, 'result', now() FROM generate_series(1, 400) AS n`);
  const worker = services.settlement.startWorker({ pollMs: 60_000 });
  await worker.stop();
  assert.ok(await pending() >= 390, `stop() waited for the backlog: ${400 - await pending()} of 400 races settled first`);
  // What was left is settled by the next run, none twice.
  const summary = await services.settlement.runPending();
  assert.equal(await pending(), 0);
  assert.ok(summary.jobs <= 400 && summary.jobs >= 390, String(summary.jobs));
});
