// A tenant's time zone is read by PostgreSQL too: an upload's racing day and deadline, a placed
// bet's. A name that Node's ICU still knows but PostgreSQL's time zone database does not (an alias
// removed from tzdata, such as Canada/East-Saskatchewan) was taken at create, and then every upload
// of the tenant failed ('time zone "…" not recognized'). Such a zone is refused at create.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import type { Services } from '../src/services.ts';
import { servicesOnFreshDatabase } from './helpers/app.ts';
import type { TestDatabase } from './helpers/db.ts';

// Known to Node 20's ICU; absent from current tzdata (removed in 2017c), so from PostgreSQL's.
const CANDIDATES = ['Canada/East-Saskatchewan', 'US/Pacific-New', 'SystemV/AST4'];

let db: TestDatabase;
let services: Services;
let close: () => Promise<void>;
before(async () => {
  ({ db, services, close } = await servicesOnFreshDatabase());
});
after(() => close());

async function postgresKnows(zone: string): Promise<boolean> {
  const { rows } = await db.pool.query<{ known: boolean }>('SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known', [zone]);
  return rows[0]!.known;
}

test('a time zone PostgreSQL does not know is refused at create; a name it knows, in any case, is taken', async (t) => {
  const unknown: string[] = [];
  for (const zone of CANDIDATES) {
    if (!(await postgresKnows(zone))) {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        unknown.push(zone);
      } catch { /* ICU does not know it either: refused already */ }
    }
  }
  if (!unknown.length) return t.skip('every candidate is known to both this Node.js and this PostgreSQL');
  await services.tenants.createTenant({ name: 'Sydney operator' });
  for (const zone of unknown) {
    await assert.rejects(services.tenants.createTenant({ name: `Operator in ${zone}`, timezone: zone }), (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.status, 400);
      assert.match(error.message, new RegExp(`timezone "${zone}" is not a time zone the database knows`));
      return true;
    }, zone);
  }
  // PostgreSQL looks names up regardless of case, as ICU does.
  const sydney = await services.tenants.createTenant({ name: 'Lower-case zone', timezone: 'australia/sydney' });
  assert.equal(sydney.timezone, 'australia/sydney');
  const { rows } = await db.pool.query<{ day: string }>(
    "SELECT ('2026-01-01T13:30:00Z'::timestamptz AT TIME ZONE timezone)::date::text AS day FROM tenants WHERE tenant_id = $1", [sydney.tenant_id]);
  assert.deepEqual(rows, [{ day: '2026-01-02' }]);
});

test('serve\'s start-up reading calls refused exactly the zones the database refuses: a POSIX rule it converts is compared, not refused', async () => {
  const stored = async (zone: string) => (await db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ($1, 'AUD', $1) RETURNING tenant_id", [zone])).rows[0]!.tenant_id;
  const retired = await stored('Canada/East-Saskatchewan');
  const posix = await stored('SystemV/AST4');
  const abbreviation = await stored('CET');
  const edges = await stored('SystemV/EST5EDT'); // US summer time: today's dates to the database, pre-2007 ones to Node.js
  const usable = async (zone: string) => (await db.pool.query<{ ok: boolean }>('SELECT time_zone_usable($1) AS ok', [zone])).rows[0]!.ok;
  assert.deepEqual([await usable('Canada/East-Saskatchewan'), await usable('SystemV/AST4')], [false, true], 'the names this test needs');
  const { unknown, misread } = await services.tenants.tenantsWithFaultyZones();
  const ids = (list: Array<{ tenant_id: string }>) => list.map((t) => t.tenant_id).filter((id) => [retired, posix, abbreviation, edges].includes(id));
  assert.deepEqual(ids(unknown), [retired], 'refused: the one whose uploads and bets the database refuses');
  // UTC−4 all year to both (Node reads SystemV/AST4 so too): nothing to warn of. CET keeps summer
  // time in Node only; SystemV/EST5EDT agrees in January and July, and differs in March and late October.
  assert.deepEqual(ids(misread).sort(), [abbreviation, edges].sort());
});
