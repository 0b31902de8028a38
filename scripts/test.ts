// The test command (npm test). Prepares one PostgreSQL for the whole run — the server at
// DATABASE_URL when set, else an embedded one in a temporary directory — migrates a template
// database once, compiles the checkout to JavaScript (scripts/compiled-tree.ts), then runs every
// *.test.ts file's JavaScript with node's test runner. Each test file clones the template into a
// fresh database of its own (test/helpers/db.ts), so files run in parallel.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { compiledTree, filesEndingWith } from './compiled-tree.ts';
import { freePort } from '../test/helpers/net.ts';

const root = path.resolve(import.meta.dirname, '..');

async function withAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const files = ['src', 'test'].flatMap((dir) => filesEndingWith(path.join(root, dir), '.test.ts'))
    // Matched against the path inside the repository, so the checkout's own directory names never match.
    .filter((f) => !filters.length || filters.some((needle) => path.relative(root, f).includes(needle)))
    .sort();
  // Given no file, node's test runner would search the compiled copy itself, helpers and all.
  if (!files.length) {
    console.error(`npm test: no test file's path contains ${filters.map((f) => `"${f}"`).join(' or ')}`);
    return 1;
  }
  let embedded: EmbeddedDatabase | undefined;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'wagerline-test-'));
  chmodSync(tmp, 0o755);
  const tree = path.join(tmp, 'tree');
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbedded(tmp, await freePort());
    adminUrl = embedded.url;
  }
  const template = `wl_template_${process.pid}`;
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  try {
    await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${template}`));
    await migrate(templateUrl.toString());
    await compiledTree(root, tree);
    const compiled = files.map((f) => path.join(tree, path.relative(root, f)).replace(/\.ts$/, '.js'));
    // Every test process, and every process a test starts, refuses connections off this machine.
    const guard = `--import=${pathToFileURL(path.join(root, 'test/helpers/no-network.mjs')).href}`;
    const env = {
      ...process.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, guard].filter(Boolean).join(' '),
      WAGERLINE_TEST_ADMIN_URL: adminUrl,
      WAGERLINE_TEST_TEMPLATE: template,
    };
    const args = ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-reporter=spec', ...compiled];
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, args, { stdio: 'inherit', env, cwd: tree });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await withAdmin(adminUrl, async (c) => {
      const { rows } = await c.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2",
        [template, `wl_test_${process.pid}_%`],
      );
      for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }).catch(() => undefined);
    await embedded?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
