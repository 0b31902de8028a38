// A placement holds at most one database connection at a time: the accepting transaction reads
// everything it needs (the races under lock, a multi-race pool, the limits) on its own connection.
// With a pool of one connection, a daily double is taken; were any read made on a second
// connection while the transaction holds the first, the placement would wait for ever (and, with
// a pool of ten, ten concurrent placements would).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { createServices, type Services } from '../src/services.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770021;
const MULTI_RACE = 770022;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let single: Pool;
let services: Services;

before(async () => {
  f = await bettingFixture(MEETING);
  await f.services.catalogue.importCatalog({
    meeting_id: MULTI_RACE, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'dailydouble', races: [1, 2] }],
    races: [1, 2].map((r) => ({ race_number: r, start_time: new Date(Date.now() + r * 3600_000).toISOString(),
      products: ['win'], runners: [1, 2, 3].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) })),
  });
  single = createPool(f.db.url, 1);
  // The same services (and secret box: the tenant's wallet secret opens) over a pool of one connection.
  services = createServices({ config: loadConfig({ DATABASE_URL: f.db.url, LOG_LEVEL: 'silent' }), db: single, box: f.box });
});
after(async () => {
  await services.close();
  await single.end();
  await f.close();
});

test('a daily double is taken with a pool of one connection', { timeout: 20_000 }, async () => {
  const userId = randomUUID();
  const bet = await services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type: 'DAILY_DOUBLE', stake: 2,
    legs: [{ meetingId: MULTI_RACE, raceNumber: 1, selections: [[1, 2]] }, { meetingId: MULTI_RACE, raceNumber: 2, selections: [[3]] }],
  });
  assert.deepEqual([bet.status, bet.combinations, bet.acceptedStake], ['ACCEPTED', 2, 2]);
  assert.deepEqual(await f.storedCalls(bet.id), ['reserve delivered 2.00', 'confirm pending 2.00']);
});
