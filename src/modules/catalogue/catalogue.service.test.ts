// The catalogue service on a real database: import (checked whole, re-import updates), prices with
// their history, scratchings, the status machine and its row lock, the sample day.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../../db/pool.ts';
import { createSecretBox } from '../../crypto/secret-box.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { testClock, testServices, type TestClock } from '../../../test/helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';

let db: TestDatabase;
let services: Services;
let clock: TestClock;

const race = (n: number, extra: Record<string, unknown> = {}) => ({
  race_number: n, start_time: `2026-11-21T${10 + n}:10:00+11:00`, products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'],
  runners: [{ number: 1, name: 'Fast Lass', win: 3.5, place: 1.6 }, { number: 2, name: 'Deep Blue', scratched: true }, { number: 3, name: 'Third Man', win: 8 }],
  ...extra,
});
const meeting = (extra: Record<string, unknown> = {}) => ({
  meeting_id: 900001, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
  pools: [{ product: 'quaddie', races: [5, 6, 7, 8] }, { product: 'dailydouble', races: [7, 8] }],
  races: [5, 6, 7, 8].map((n) => race(n)),
  ...extra,
});

async function rejects(p: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}`);
}

before(async () => {
  db = await freshDatabase();
  clock = testClock(new Date('2026-11-21T00:00:00Z'));
  services = testServices(db, createSecretBox(randomBytes(32)), { clock });
});
after(async () => {
  await services.close();
  await db.drop();
});

test('a file with problems is refused whole: every problem listed, nothing written', async () => {
  const bad = [meeting({ meeting_id: 900009, code: 'X', pools: [{ product: 'quaddie', races: [5, 6, 7] }, { product: 'trio', races: [1, 2] }],
    races: [race(5, { runners: [{ number: 1, name: 'A', win: 1.005 }, { number: 1, name: '', place: 0.5, colour: 'red' }] }),
      race(6, { products: ['win', 'multi'], start_time: 'noon' }), race(6)] })];
  const error = await rejects(services.catalogue.importCatalog(bad), 'validation_failed');
  const fields = (error.extensions.errors as Array<{ field: string }>).map((e) => e.field);
  assert.deepEqual(fields, [
    '0/code', '0/races/0/runners/0/win', '0/races/0/runners/1/colour', '0/races/0/runners/1/name', '0/races/0/runners/1/place',
    '0/races/0/runners/1/number', '0/races/1/start_time', '0/races/1/products', '0/races/2/race_number', '0/pools/0/races', '0/pools/1/product',
  ]);
  assert.equal(error.extensions.total_errors, 11);
  assert.match(error.message, /^nothing imported: 0\/code must be T/);
  const { rows } = await db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 900009');
  assert.equal(rows.length, 0);
  await rejects(services.catalogue.importCatalog('x'), 'validation_failed');
  await rejects(services.catalogue.importCatalog({ meetings: [] }), 'validation_failed');
});

test('import writes races, runners, prices and pools; a re-import updates and keeps the event id', async () => {
  assert.deepEqual(await services.catalogue.importCatalog(meeting()), { imported: 1, races: 4, runners: 12, price_changes: 8, pools: 2 });
  const first = await services.catalogue.getRace(900001, 5);
  assert.equal(first?.status, 'open');
  assert.equal(first?.meeting_name, 'Flemington');
  assert.equal(first?.start_time, '2026-11-21T04:10:00.000Z');
  assert.deepEqual(first?.runners[0], { number: 1, name: 'Fast Lass', scratched: false, scratched_at: null, win: '3.50', place: '1.60', win_deduction: null, place_deduction: null });
  assert.equal(first?.runners[1]?.scratched, true);
  assert.equal(first?.runners[1]?.scratched_at, '2026-11-21T00:00:00.000Z');
  assert.deepEqual(await services.catalogue.getPools(900001), [{ product: 'quaddie', races: [5, 6, 7, 8] }, { product: 'dailydouble', races: [7, 8] }]);

  clock.advance(60_000);
  const again = meeting({ pools: [{ product: 'dailydouble', races: [5, 6] }], races: [race(5, {
    products: undefined, runners: [{ number: 1, name: 'Fast Lass', win: 4.2 }, { number: 2, name: 'Deep Blue' }, { number: 3, name: 'Third Man', win: 8 }],
  })] });
  assert.deepEqual(await services.catalogue.importCatalog(again), { imported: 1, races: 1, runners: 3, price_changes: 1, pools: 1 });
  const second = await services.catalogue.getRace(900001, 5);
  assert.equal(second?.event_id, first?.event_id);
  assert.deepEqual(second?.products, first?.products, 'products not given are kept');
  assert.deepEqual([second?.runners[0]?.win, second?.runners[0]?.place], ['4.20', '1.60'], 'a price not given is kept');
  assert.equal(second?.runners[1]?.scratched, true, 'an import never unscratches');
  assert.deepEqual(await services.catalogue.getPools(900001), [{ product: 'dailydouble', races: [5, 6] }]);
  assert.deepEqual((await services.catalogue.priceHistory(900001, 5, 1)).map((h) => [h.changed_at, h.win, h.place, h.source]), [
    ['2026-11-21T00:00:00.000Z', '3.50', '1.60', 'import'], ['2026-11-21T00:01:00.000Z', '4.20', '1.60', 'import']]);
});

test('meeting import and the deadline functions keep working on the same rows', async () => {
  await services.catalogue.importMeetings([{ meeting_id: 900001, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T', races: [{ race_number: 9, start_time: '2026-11-21T20:00:00+11:00' }] }]);
  const nine = await services.catalogue.getRace(900001, 9);
  assert.deepEqual([nine?.status, nine?.products, nine?.runners], ['open', ['win', 'place'], []]);
  const { rows } = await db.pool.query(`SELECT catalogue_upload_deadline('2026-11-21', 'Australia/Sydney') AS d, catalogue_meeting_date(900001)::text AS m`);
  assert.equal(rows[0].d.toISOString(), '2026-11-22T09:00:00.000Z');
  assert.equal(rows[0].m, '2026-11-21');
  // A pool may name races the catalogue already holds, not only the file's.
  const withPool = meeting({ races: [race(9)], pools: [{ product: 'quaddie', races: [5, 6, 7, 9] }] });
  assert.equal((await services.catalogue.importCatalog(withPool)).pools, 1);
});

test('prices: exact decimals, every change kept with its time, refused on a scratched runner or a closed race', async () => {
  clock.set(new Date('2026-11-21T01:00:00Z'));
  const set = await services.catalogue.setPrice(900001, 6, 1, { win: 3.4, place: '1.5' });
  assert.deepEqual([set.runner.win, set.runner.place, set.changed], ['3.40', '1.50', true]);
  assert.equal((await services.catalogue.setPrice(900001, 6, 1, { win: '3.40' })).changed, false);
  clock.advance(1000);
  await services.catalogue.setPrice(900001, 6, 1, { place: 1.45 });
  const history = await services.catalogue.priceHistory(900001, 6, 1);
  assert.deepEqual(history.slice(1).map((h) => [h.changed_at, h.win, h.place, h.source]), [
    ['2026-11-21T01:00:00.000Z', '3.40', '1.50', 'price'], ['2026-11-21T01:00:01.000Z', '3.40', '1.45', 'price']]);
  await rejects(services.catalogue.setPrice(900001, 6, 1, { win: 1.005 }), 'validation_failed');
  await rejects(services.catalogue.setPrice(900001, 6, 1, { win: 0.5 }), 'validation_failed');
  await rejects(services.catalogue.setPrice(900001, 6, 1, {}), 'bad_request');
  await rejects(services.catalogue.setPrice(900001, 6, 2, { win: 3 }), 'runner_scratched');
  await rejects(services.catalogue.setPrice(900001, 6, 42, { win: 3 }), 'runner_not_found');
  await rejects(services.catalogue.setPrice(900001, 42, 1, { win: 3 }), 'race_not_found');
  await services.catalogue.setStatus(900001, 6, 'closed');
  const closed = await rejects(services.catalogue.setPrice(900001, 6, 1, { win: 3 }), 'race_not_trading');
  assert.equal(closed.extensions.status, 'closed');
});

test('scratching: time and deductions kept; a second scratching keeps the first time', async () => {
  clock.set(new Date('2026-11-21T02:00:00Z'));
  const s = await services.catalogue.scratch(900001, 7, 3, { win_deduction: 15, place_deduction: '5.5' });
  assert.deepEqual(s.runner, { number: 3, name: 'Third Man', scratched: true, scratched_at: '2026-11-21T02:00:00.000Z', win: '8.00', place: null, win_deduction: '15.00', place_deduction: '5.50' });
  clock.advance(5000);
  const again = await services.catalogue.scratch(900001, 7, 3);
  assert.deepEqual([again.runner.scratched_at, again.changed], ['2026-11-21T02:00:00.000Z', false]);
  await rejects(services.catalogue.scratch(900001, 7, 1, { win_deduction: 100 }), 'validation_failed');
  await services.catalogue.setStatus(900001, 8, 'abandoned');
  await rejects(services.catalogue.scratch(900001, 8, 1), 'race_not_trading');
});

test('status: legal moves change the race, illegal ones are a 409 naming both statuses', async () => {
  assert.deepEqual(await services.catalogue.setStatus(900001, 7, 'suspended'), {
    meeting_id: 900001, race_number: 7, event_id: (await services.catalogue.getRace(900001, 7))!.event_id, status: 'suspended', previous_status: 'open', changed: true });
  assert.equal((await services.catalogue.setStatus(900001, 7, 'open')).changed, true);
  assert.equal((await services.catalogue.setStatus(900001, 7, 'open')).changed, false);
  await services.catalogue.setStatus(900001, 7, 'closed');
  const error = await rejects(services.catalogue.setStatus(900001, 7, 'suspended'), 'race_status_conflict');
  assert.equal(error.status, 409);
  assert.deepEqual([error.extensions.current_status, error.extensions.requested_status, error.extensions.allowed], ['closed', 'suspended', ['interim', 'final', 'abandoned']]);
  assert.match(error.message, /race is closed and cannot become suspended/);
  await rejects(services.catalogue.setStatus(900001, 7, 'final'), 'bad_request');
  assert.equal((await services.catalogue.setStatus(900001, 7, ' Abandoned ')).status, 'abandoned');
  assert.deepEqual((await services.catalogue.statusHistory(900001, 7)).map((h) => `${h.from}→${h.to}`),
    ['open→suspended', 'suspended→open', 'open→closed', 'closed→abandoned']);
  await rejects(services.catalogue.setStatus(900001, 99, 'open'), 'race_not_found');
});

test('getRace with lock holds FOR SHARE in the caller\'s transaction: a status change waits for it', async () => {
  await services.catalogue.importCatalog(meeting({ meeting_id: 900002, pools: [] }));
  let released = false;
  let changedAt = false;
  await withTransaction(db.pool, async (tx) => {
    const view = await services.catalogue.getRace(900002, 5, { tx, lock: true });
    assert.equal(view?.status, 'open');
    const change = services.catalogue.setStatus(900002, 5, 'closed').then(() => { changedAt = released; });
    await new Promise((r) => setTimeout(r, 300));
    released = true;
    void change;
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(changedAt, true, 'the status change committed only after the placement\'s transaction');
  assert.equal((await services.catalogue.getRace(900002, 5))?.status, 'closed');
  await assert.rejects(services.catalogue.getRace(900002, 5, { lock: true }), TypeError);
  assert.equal(await services.catalogue.getRace(900002, 77), undefined);
});

test('the sample day for today: two meetings of open races starting over the coming hours', async () => {
  clock.set(new Date());
  const result = await services.catalogue.sample('today');
  assert.equal(result.imported, 2);
  assert.equal(result.meetings.length, 2);
  for (const m of result.meetings) {
    assert.ok(m.races >= 8);
    const race = await services.catalogue.getRace(m.meeting_id, 1);
    assert.equal(race?.status, 'open');
    assert.ok(Date.parse(race!.start_time) > Date.now(), race!.start_time);
    assert.ok(race!.runners.length >= 8 && race!.runners.some((r) => r.win !== null));
    assert.equal((await services.catalogue.getPools(m.meeting_id)).length, 2);
  }
  const dated = await services.catalogue.sample('2026-12-01');
  assert.deepEqual(dated.meetings.map((m) => [m.meeting_id, m.date, m.first_start]), [
    [926120101, '2026-12-01', '2026-12-01T12:20:00+11:00'], [926120102, '2026-12-01', '2026-12-01T12:35:00+11:00']]);
  await rejects(services.catalogue.sample('tomorrow'), 'bad_request');
});
