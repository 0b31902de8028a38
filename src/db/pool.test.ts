import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../test/helpers/db.ts';
import { withTransaction } from './pool.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

test('a read-only transaction (reports) reads, and refuses any write', async () => {
  const { rows } = await withTransaction(db.pool, (tx) => tx.query('SELECT count(*)::int AS n FROM tenants'), { isolation: 'repeatable read', readOnly: true });
  assert.equal(rows[0].n, 0);
  await assert.rejects(
    withTransaction(db.pool, (tx) => tx.query("INSERT INTO tenants (name, currency, timezone) VALUES ('x', 'AUD', 'UTC')"), { readOnly: true }),
    (error: { code?: string }) => error.code === '25006', // read_only_sql_transaction
  );
});

test('genericPlans and lockTimeoutMs hold for their transaction only', async () => {
  const settings = "SELECT current_setting('plan_cache_mode') AS plans, current_setting('lock_timeout') AS lock";
  const inside = await withTransaction(db.pool, (tx) => tx.query(settings), { genericPlans: true, lockTimeoutMs: 1500 });
  assert.deepEqual(inside.rows[0], { plans: 'force_generic_plan', lock: '1500ms' });
  const plain = await withTransaction(db.pool, (tx) => tx.query(settings));
  assert.equal(plain.rows[0].plans, 'auto');
  const { rows } = await db.pool.query(settings);
  assert.deepEqual(rows[0], { plans: 'auto', lock: '0' }, 'SET LOCAL ends with its transaction');
});

test('a transaction whose failed statement was caught is not reported committed: nothing of it is kept', async () => {
  const insert = "INSERT INTO tenants (name, currency, timezone) VALUES ('kept?', 'AUD', 'UTC')";
  await assert.rejects(
    withTransaction(db.pool, async (tx) => {
      await tx.query(insert);
      await tx.query('SELECT 1/0').catch(() => undefined); // the transaction is aborted from here on
      return 'done';
    }),
    /rolled back at COMMIT \(ROLLBACK\)/,
  );
  const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM tenants WHERE name = 'kept?'");
  assert.equal(rows[0].n, 0);
});
