// Page cursors are signed and bound to their listing: only a cursor this service issued for the
// same tenant, race and source filter is accepted; anything else is a 400 before any SQL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createCursorCodec } from '../src/http/cursor.ts';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx, { agencies: ['TAB'] });
  const bets = Array.from({ length: 5 }, (_, i) => buildBet({ id: `k-${i}`, source: 'TAB' }));
  for (const race of [1, 2]) {
    const res = await ctx.app.inject({
      method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: 9, race_number: race, bets: bets.map((b) => ({ ...b, id: `${b.id}-${race}` })) }),
      headers: { 'content-type': 'application/json', ...client.auth },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
});
after(() => ctx.close());

const list = (query: string, auth: Record<string, string> = client.auth) => ctx.app.inject({ url: `/public/bets?${query}`, headers: auth });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function firstCursor(race = 1): Promise<string> {
  const res = await list(`meeting_id=9&race_number=${race}&limit=2`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().next_cursor;
}

test('an issued cursor pages through the race', async () => {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await list(`meeting_id=9&race_number=1&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.statusCode, 200, res.body);
    ids.push(...res.json().bets.map((b: { id: string }) => b.id));
    cursor = res.json().next_cursor;
  } while (cursor);
  assert.deepEqual(ids, ['k-0-1', 'k-1-1', 'k-2-1', 'k-3-1', 'k-4-1']);
});

test('forged, edited and borrowed cursors are a 400', async () => {
  const issued = await firstCursor();
  const [version, payload, mac] = issued.split('.') as [string, string, string];
  const other = await seedClient(ctx, { agencies: ['TAB'] });
  const cases: Array<[string, string, Record<string, string>?]> = [
    ['unsigned, with an extra item', b64(['TAB', 'k-1-1', 1, 'extra'])],
    ['the old unsigned form', b64(['TAB', 'k-1-1', 1])],
    ['an extra item, old signature', `${version}.${b64(['TAB', 'k-1-1', 1, 'extra'])}.${mac}`],
    ['another key, old signature', `${version}.${b64(['TAB', 'k-3-1', 1])}.${mac}`],
    ['a changed signature', `${version}.${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`],
    ['another version', `c9.${payload}.${mac}`],
    ['an extra part', `${issued}.x`],
    ['for another race', issued],
    ['another tenant', issued, other.auth],
  ];
  for (const [what, cursor, auth] of cases) {
    const race = what === 'for another race' ? 2 : 1;
    const res = await list(`meeting_id=9&race_number=${race}&cursor=${encodeURIComponent(cursor)}`, auth ?? client.auth);
    assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
    assert.equal(res.json().code, 'bad_request', what);
    assert.match(res.json().detail, /cursor/);
  }
  const withFilter = await list(`meeting_id=9&race_number=1&source=TAB&cursor=${encodeURIComponent(issued)}`);
  assert.equal(withFilter.statusCode, 400, 'a cursor of the unfiltered listing is not one of the filtered listing');
});

test('the codec: only its own cursors, for the same scope, in the shape asked', () => {
  const codec = createCursorCodec(randomBytes(32));
  const shape = (k: unknown[]) => (k.length === 1 && typeof k[0] === 'number' ? k[0] : undefined);
  const cursor = codec.encode('scope', [7]);
  assert.equal(codec.decode(cursor, 'scope', shape), 7);
  assert.throws(() => codec.decode(cursor, 'other', shape), /cursor/);
  assert.throws(() => createCursorCodec(randomBytes(32)).decode(cursor, 'scope', shape), /cursor/);
  assert.throws(() => codec.decode(codec.encode('scope', [7, 8]), 'scope', shape), /cursor/);
  assert.throws(() => codec.decode(codec.encode('scope', ['7']), 'scope', shape), /cursor/);
  assert.throws(() => codec.decode('x'.repeat(600), 'scope', shape), /cursor/);
});
