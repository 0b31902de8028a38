// A fresh database per test file, cloned from the migrated template that scripts/test.ts made.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool, type Pool } from '../../src/db/pool.ts';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with "npm test" (optionally: npm test -- <file filter>)`);
  return value;
}

/** A database cloned from the migrated template (or, with `empty`, one with no tables at all). */
export async function freshDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = env('WAGERLINE_TEST_ADMIN_URL');
  const template = options.empty ? 'template1' : env('WAGERLINE_TEST_TEMPLATE');
  // The runner's pid is in the template name; reuse it so the runner can drop leftovers.
  const runner = env('WAGERLINE_TEST_TEMPLATE').replace('wl_template_', '');
  const name = `wl_test_${runner}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 20);
  return {
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
