// A name that is also a time zone abbreviation (CET, EET, WET, MET, PST) is read by PostgreSQL as
// the abbreviation, a fixed offset, and by Node.js's Intl as a zone with summer time: a tenant
// created with "CET" had racing days an hour apart between its uploads (Intl) and the racing day
// and deadline stored with its bets (AT TIME ZONE) all summer. Creation and set-zone refuse such a
// name; a tenant stored with one is named at `serve` start, keeps uploading, and set-zone replaces
// its zone. Against the real database and the real `wagerline serve`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { currentName } from '../src/modules/tenants/time-zones.ts';
import { buildBet } from './factories/bet-factory.ts';
import { servicesOnFreshDatabase } from './helpers/app.ts';
import { cliChecks, cliEnv, startCli } from './helpers/cli.ts';
import type { TestDatabase } from './helpers/db.ts';
import { tenantWithZone as legacyTenant } from './helpers/legacy-tenant.ts';
import { freePort } from './helpers/net.ts';
import type { Services } from '../src/services.ts';
import { until } from './wallet-fixtures.ts';

const MISREAD = ['CET', 'cet', 'EET', 'WET', 'MET', 'PST'];
const JULY = `${new Date().getUTCFullYear()}-07-15T12:00:00Z`;

let db: TestDatabase;
let services: Services;
let close: () => Promise<void>;
let env: Record<string, string>;
const { ok, refused } = cliChecks(() => env);

before(async () => {
  ({ db, services, close } = await servicesOnFreshDatabase());
  env = cliEnv(db.url, { LOG_LEVEL: 'info' });
});
after(() => close());

const postgresHour = async (zone: string) => (await db.pool.query<{ hour: number }>(
  'SELECT extract(hour FROM $1::timestamptz AT TIME ZONE $2)::int AS hour', [JULY, zone])).rows[0]!.hour;
const nodeHour = (zone: string) => Number(new Intl.DateTimeFormat('en', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(new Date(JULY)));
const tenantCount = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants')).rows[0]!.n;

function refusedAs(detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.status, 400);
    assert.match(error.message, detail);
    assert.ok(error.message.length < 300, error.message);
    return true;
  };
}

test('a name PostgreSQL reads as an abbreviation and Intl as another zone is refused at create; names both read alike are taken', async () => {
  // The premise: in July, "CET" is 13:00 at 12:00Z to PostgreSQL (fixed +1) and 14:00 to Intl.
  assert.deepEqual([await postgresHour('CET'), nodeHour('CET'), await postgresHour('Europe/Paris')], [13, 14, 14]);
  const before = await tenantCount();
  for (const zone of MISREAD) {
    await assert.rejects(services.tenants.createTenant({ name: `Operator in ${zone}`, timezone: zone }), refusedAs(new RegExp(
      `^timezone "${zone}" is a time zone abbreviation to the database: it reads it as UTC[+-]\\d\\d:\\d\\d on \\d{4}-\\d\\d-\\d\\d, ` +
      'Node.js as UTC[+-]\\d\\d:\\d\\d .*use a Region/City name')), zone);
  }
  assert.equal(await tenantCount(), before, 'nothing stored');
  // The CLI and the admin API share the check; a Region/City name Node.js reads it as is offered when there is one.
  await refused(['tenant', 'create', '--name', 'CET Bet', '--timezone', 'CET'], /^wagerline: timezone "CET" is a time zone abbreviation to the database/);
  // (Which name ICU gives depends on the Node.js line: Node 20's reads PST as America/Los_Angeles.)
  const offered = currentName('PST')?.includes('/') ? currentName('PST')! : 'Europe/Paris';
  await assert.rejects(services.tenants.createTenant({ name: 'Pacific', timezone: 'PST' }), refusedAs(new RegExp(`such as "${offered}"`)));
  // Fixed offsets that both read alike, and zones that are no abbreviation, are taken.
  for (const zone of ['EST', 'UTC', 'Etc/GMT-1', 'Europe/Paris', 'europe/lisbon']) {
    assert.equal((await services.tenants.createTenant({ name: `Operator in ${zone}`, timezone: zone })).timezone, zone);
  }
});

/** tenantWithZone of this file's database and CLI. */
const tenantWithZone = (name: string, zone: string) => legacyTenant(db, ok, name, zone);

async function upload(url: string, token: string): Promise<{ status: number; body: any }> {
  const batch = { meeting_id: 1001, race_number: 1, bets: [buildBet({ id: 'C-1' })] };
  const res = await fetch(`${url}/public/uploadRaceV2`, {
    method: 'POST', body: JSON.stringify(batch), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: await res.json() };
}

test('a stored abbreviation: serve names it at start, its uploads go on, set-zone replaces it with a zone both read alike', { timeout: 120_000 }, async () => {
  const misread = await tenantWithZone('Central Bet', 'CET');
  await tenantWithZone('Paris Bet', 'Europe/Paris');
  const serve = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  const exited = new Promise((resolve) => serve.child.once('exit', resolve));
  const warnings = () => serve.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.module === 'tenants');
  try {
    await until('the time zone warning', () => warnings().length > 0);
    const [warned, ...others] = warnings();
    assert.deepEqual(others, [], 'one line: no tenant has a zone the database does not know');
    assert.equal(warned.level, 40);
    assert.deepEqual(warned.tenants, [{ tenant_id: misread.tenantId, name: 'Central Bet', timezone: 'CET', disabled: false }]);
    assert.match(warned.msg, /^1 tenant has a time zone the database and Node.js read differently .*tenant set-zone <tenant_id> <zone>/);

    const stored = await upload(serve.first.url, misread.token);
    assert.deepEqual([stored.status, stored.body.created], [200, 1], 'not refused: a running operator goes on');

    await refused(['tenant', 'set-zone', misread.tenantId, 'EET'], /timezone "EET" is a time zone abbreviation to the database/);
    const fixed = await ok(['tenant', 'set-zone', misread.tenantId, 'Europe/Paris']);
    assert.deepEqual([fixed.timezone, fixed.previous_timezone], ['Europe/Paris', 'CET']);
    await refused(['tenant', 'set-zone', misread.tenantId, 'Europe/Berlin'], /time zone "Europe\/Paris" is one the database knows and reads as Node.js does: only a zone it does not know or reads differently is replaced/);
  } finally {
    serve.child.kill('SIGTERM');
    await exited;
  }
});
