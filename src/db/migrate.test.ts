import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { testServices } from '../../test/helpers/app.ts';
import { freshDatabase } from '../../test/helpers/db.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { MIGRATIONS_DIR, migrate, pendingMigrations } from './migrate.ts';

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

test('0014: a stored wallet or JWKS URL at an IP address keeps working as written; one at a host name must now resolve to public addresses', async () => {
  const db = await freshDatabase({ empty: true });
  try {
    // The schema as it was before 0014, with configurations saved under it.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await runner({ dbClient: client, dir: MIGRATIONS_DIR, migrationsTable: 'schema_migrations', direction: 'up', count: 13, log: () => undefined });
    await client.end();
    const urls = ['http://127.0.0.1:9/api', 'http://[::1]:8080/w', 'https://wallet.example.com/api', 'https://93.184.215.14/w'];
    for (const url of urls) {
      const { rows: [t] } = await db.pool.query("INSERT INTO tenants (name) VALUES ('t') RETURNING tenant_id");
      await db.pool.query("INSERT INTO wallet_configs (tenant_id, url, auth_kind, api_key_enc, api_key_header) VALUES ($1, $2, 'api_key', 'x', 'x-api-key')", [t.tenant_id, url]);
      await db.pool.query("INSERT INTO user_auth_configs (tenant_id, mode, jwks_url, client_id) VALUES ($1, 'jwt', $2, 'web')", [t.tenant_id, `${url}/jwks.json`]);
    }
    const { rows: [custom] } = await db.pool.query("INSERT INTO tenants (name) VALUES ('c') RETURNING tenant_id");
    await db.pool.query("INSERT INTO user_auth_configs (tenant_id, mode) VALUES ($1, 'custom')", [custom.tenant_id]);

    assert.equal((await migrate(db.url)).applied[0], '0014_private_network');
    const wallets = await db.pool.query('SELECT url, private_network FROM wallet_configs ORDER BY url');
    assert.deepEqual(Object.fromEntries(wallets.rows.map((r) => [r.url, r.private_network])), {
      'http://127.0.0.1:9/api': true, 'http://[::1]:8080/w': true, 'https://93.184.215.14/w': true, 'https://wallet.example.com/api': false,
    });
    const auths = await db.pool.query('SELECT jwks_url, private_network FROM user_auth_configs');
    assert.deepEqual(auths.rows.filter((r) => r.private_network).map((r) => r.jwks_url).sort(),
      ['http://127.0.0.1:9/api/jwks.json', 'http://[::1]:8080/w/jwks.json', 'https://93.184.215.14/w/jwks.json']);
    assert.equal(auths.rows.length, 5, 'the custom one too, false');
  } finally {
    await db.drop();
  }
});

test('0017: results recorded before keep the places paid their settlement read (today\'s terms, the starters)', async () => {
  const db = await freshDatabase({ empty: true });
  const services = testServices(db, createSecretBox(randomBytes(32)));
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await runner({ dbClient: client, dir: MIGRATIONS_DIR, migrationsTable: 'schema_migrations', direction: 'up', count: 16, log: () => undefined });
    await client.end();
    const runners = (n: number, scratched: number[] = []) => Array.from({ length: n }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 3, scratched: scratched.includes(i + 1) }));
    const race = (race_number: number, list: ReturnType<typeof runners>) => ({ race_number, start_time: '2026-11-21T12:00:00Z', products: ['win', 'place'], runners: list });
    await services.catalogue.importCatalog({ meeting_id: 1, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
      races: [race(1, runners(8)), race(2, runners(6, [6])), race(3, runners(4))] });
    await services.catalogue.importCatalog({ meeting_id: 2, date: '2026-11-21', venue: 'Randwick', jurisdiction: 'NSW', code: 'T', races: [race(1, runners(4))] });
    await db.pool.query(`INSERT INTO place_terms (jurisdiction, terms) VALUES ('NSW', '[{"min_starters": 2, "places": 1}]')`);
    await db.pool.query(`INSERT INTO race_results (meeting_id, race_number, version, final, placings, recorded_at)
      SELECT m, r, v, true, '[[1]]', now() FROM (VALUES (1, 1, 1), (1, 1, 2), (1, 2, 1), (1, 3, 1), (2, 1, 1)) AS x(m, r, v)`);

    assert.equal((await migrate(db.url)).applied[0], '0017_result_places_paid');
    const { rows } = await db.pool.query("SELECT meeting_id || '/' || race_number || '/' || version AS k, places_paid FROM race_results ORDER BY 1");
    // '*': 8 or more starters 3 places, 5-7 2, fewer none (race 2: 5 starters, one scratched); NSW's own: 1 from 2.
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.k, r.places_paid])), { '1/1/1': 3, '1/1/2': 3, '1/2/1': 2, '1/3/1': 0, '2/1/1': 1 });
  } finally {
    await services.close();
    await db.drop();
  }
});

test('0018: legs written before keep no struck_at and read as struck at their bets\' creation, the time their settlement read', async () => {
  const db = await freshDatabase({ empty: true });
  const services = testServices(db, createSecretBox(randomBytes(32)));
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await runner({ dbClient: client, dir: MIGRATIONS_DIR, migrationsTable: 'schema_migrations', direction: 'up', count: 17, log: () => undefined });
    const tenantId = '00000000-0000-4000-8000-000000000001';
    await client.query(`INSERT INTO tenants (tenant_id, name) VALUES ($1, 'T')`, [tenantId]);
    const { rows: [bet] } = await client.query(`INSERT INTO bets (tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, status, stake,
                                          combinations, boxed, bonus, created_at, updated_at)
      VALUES ($1, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'k', 'h', 'MULTI', 'accepted', 10, 1, false, false,
              '2026-11-21T01:00:00Z', now()) RETURNING bet_id`, [tenantId]);
    await client.query(`INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections)
      SELECT $1, $2, leg, 1, leg, gen_random_uuid(), 'V R' || leg, 'V', now(), '[[1]]' FROM generate_series(1, 2) AS leg`, [tenantId, bet.bet_id]);
    await client.end();

    assert.equal((await migrate(db.url)).applied[0], '0018_leg_struck_at');
    const { rows } = await db.pool.query('SELECT struck_at FROM bet_legs ORDER BY leg');
    assert.deepEqual(rows, [{ struck_at: null }, { struck_at: null }], 'nothing rewritten');
    const record = await services.bets.show({ tenantId, betId: bet.bet_id });
    assert.deepEqual(record.legs.map((l) => l.struck_at), ['2026-11-21T01:00:00.000Z', '2026-11-21T01:00:00.000Z']);
  } finally {
    await services.close();
    await db.drop();
  }
});
