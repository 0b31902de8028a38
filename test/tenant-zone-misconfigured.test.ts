// A tenant stored, before creation checked it, with a time zone Node's ICU knows but PostgreSQL
// does not (Canada/East-Saskatchewan, retired from tzdata in 2017c; ICU reads it as America/Regina).
// Against the real `wagerline serve`: start warns once naming it, its upload is a clear 409 (not a
// 500) storing nothing, `tenant set-zone` fixes it, and the same batch is then stored.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { cliChecks, cliEnv, startCli } from './helpers/cli.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { tenantWithZone as legacyTenant } from './helpers/legacy-tenant.ts';
import { freePort } from './helpers/net.ts';
import { until } from './wallet-fixtures.ts';

const RETIRED = 'Canada/East-Saskatchewan';

let db: TestDatabase;
let env: Record<string, string>;
const { ok, refused } = cliChecks(() => env);

before(async () => {
  db = await freshDatabase();
  env = cliEnv(db.url, { LOG_LEVEL: 'info' });
});
after(() => db.drop());

async function postgresKnows(zone: string): Promise<boolean> {
  const { rows } = await db.pool.query<{ known: boolean }>('SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE lower(name) = lower($1)) AS known', [zone]);
  return rows[0]!.known;
}

/** tenantWithZone of this file's database and CLI. */
const tenantWithZone = (name: string, zone: string) => legacyTenant(db, ok, name, zone);

const batch = JSON.stringify({ meeting_id: 1001, race_number: 1, bets: [buildBet({ id: 'Z-1' }), buildBet({ id: 'Z-2', runner_number: 7 })] });

async function upload(url: string, token: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/public/uploadRaceV2`, {
    method: 'POST', body: batch, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: await res.json() };
}

const storedBets = async (tenantId: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM reported_bets WHERE tenant_id = $1', [tenantId])).rows[0]!.n;

test('a stored zone PostgreSQL does not know: serve warns once, its upload is a 409 tenant_misconfigured storing nothing; set-zone fixes it', { timeout: 120_000 }, async () => {
  // The case this guards: a name Node.js takes and this PostgreSQL refuses.
  assert.equal(new Intl.DateTimeFormat('en', { timeZone: RETIRED }).resolvedOptions().timeZone, 'America/Regina');
  assert.equal(await postgresKnows(RETIRED), false, `this PostgreSQL knows ${RETIRED}: the test needs a retired name`);
  const bad = await tenantWithZone('Regina Bet', RETIRED);
  const good = await tenantWithZone('Sydney Bet', 'Australia/Sydney');

  const serve = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  const exited = new Promise((resolve) => serve.child.once('exit', resolve));
  const warnings = () => serve.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.module === 'tenants');
  try {
    await until('the time zone warning', () => warnings().length > 0);
    const warned = warnings();
    assert.equal(warned[0].level, 40);
    assert.deepEqual(warned[0].tenants, [{ tenant_id: bad.tenantId, name: 'Regina Bet', timezone: RETIRED, disabled: false }]);
    assert.match(warned[0].msg, /^1 tenant has a time zone the database does not know: .*tenant set-zone <tenant_id> <zone>/);

    const refusedUpload = await upload(serve.first.url, bad.token);
    assert.equal(refusedUpload.status, 409);
    assert.equal(refusedUpload.body.code, 'tenant_misconfigured');
    assert.deepEqual([refusedUpload.body.tenant_id, refusedUpload.body.timezone], [bad.tenantId, RETIRED]);
    assert.equal(refusedUpload.body.detail, `the tenant's time zone "${RETIRED}" is unknown to the database (retired from the IANA database?): ` +
      `nothing was stored; an administrator fixes it with \`wagerline tenant set-zone ${bad.tenantId} America/Regina\`, then send it again`);
    assert.doesNotMatch(JSON.stringify(refusedUpload.body), /not recognized|SELECT|at .*\.ts/, 'no SQL or stack');
    assert.equal(await storedBets(bad.tenantId), 0);
    assert.equal((await upload(serve.first.url, good.token)).status, 200, 'another tenant uploads as before');

    // set-zone checks as create does, and replaces only a zone the database does not know.
    await refused(['tenant', 'set-zone', bad.tenantId, 'US/Pacific-New'], /timezone "US\/Pacific-New" is not a time zone the database knows.*"America\/Los_Angeles"/);
    await refused(['tenant', 'set-zone', bad.tenantId, '+10:00'], /is not an IANA time zone name/);
    await refused(['tenant', 'set-zone', good.tenantId, 'Pacific/Auckland'], /time zone "Australia\/Sydney" is one the database knows and reads as Node.js does: only a zone it does not know or reads differently is replaced/);
    const fixed = await ok(['tenant', 'set-zone', bad.tenantId, 'America/Regina']);
    assert.deepEqual([fixed.tenant_id, fixed.timezone, fixed.previous_timezone], [bad.tenantId, 'America/Regina', RETIRED]);

    const stored = await upload(serve.first.url, bad.token);
    assert.deepEqual([stored.status, stored.body.created], [200, 2], JSON.stringify(stored.body));
    assert.equal(await storedBets(bad.tenantId), 2);
    const { rows } = await db.pool.query('SELECT DISTINCT racing_day::text AS day FROM reported_bets WHERE tenant_id = $1', [bad.tenantId]);
    assert.deepEqual(rows, [{ day: '2024-04-30' }], '13:45 in Sydney is still the evening before in Regina');
    assert.equal(warnings().length, 1, 'warned once, at start');
  } finally {
    serve.child.kill('SIGTERM');
    await exited;
  }
});
