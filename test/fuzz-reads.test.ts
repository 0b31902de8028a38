// Fuzzing the read routes: /reports/turnover and /reports/late-uploads query strings, and
// /public/bets query strings and cursors. Never a 5xx; a 4xx is problem+json; reads write nothing;
// and walking next_cursor returns every bet of a race once, in key order. Replay a failure with
// FUZZ_SEED (test/helpers/fuzz.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { buildBet } from './factories/bet-factory.ts';
import { GROUP_KEYS } from '../src/modules/reports/reports.queries.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { assertAnswer, edgeNumber, formEncode, fuzzRuns, nastyString, okShare, tablesFingerprint } from './helpers/fuzz.ts';

const RACE_BETS = 37;
let ctx: TestContext;
let operator: Record<string, string>;
let authority: Record<string, string>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  ctx.clock.set(new Date('2024-05-03T12:00:00+10:00'));
  operator = (await seedClient(ctx, { agencies: ['TAB', 'SKY'] })).auth;
  authority = (await seedClient(ctx, { scopes: ['report'], jurisdictions: ['NSW'] })).auth;
  await ctx.services.catalogue.importMeetings([{ meeting_id: 100, date: '2024-05-01', venue: 'Randwick', jurisdiction: 'NSW', code: 'T', races: [] }]);
  // Race 100/1: bets of two sources, ids that sort differently as text and as numbers; uploaded late.
  const bets = Array.from({ length: RACE_BETS }, (_, i) => buildBet({ id: `b${i}`, source: i % 3 ? 'TAB' : 'SKY', user_name: `n\u00e9${i}` }));
  const res = await ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', payload: { meeting_id: 100, race_number: 1, bets },
    headers: { ...operator } });
  assert.equal(res.statusCode, 200, res.body);
});
after(() => ctx.close());

const isoDay = (min: string, max: string) => fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
/** Anything a query value could be instead of a plausible one. */
const hostile = fc.oneof(nastyString(40), edgeNumber.map(String), fc.constant(''), fc.integer({ min: 300, max: 5_000 }).map((n) => 'x'.repeat(n)));
const groupKey = fc.constantFrom(...Object.keys(GROUP_KEYS), 'nope', 'DATE', ' date', '');

type Pairs = Array<[string, string]>;
/** A query string from [key, value] pairs (repeated keys make arrays), every byte percent-encoded. */
const query = (pairs: Pairs) => pairs.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');

/** Breaks a plausible query a little: a value replaced, a key dropped, repeated or added. */
const mutations = fc.array(fc.record({ op: fc.constantFrom('replace', 'drop', 'repeat', 'add'), at: fc.nat(), key: nastyString(12), value: hostile }), { maxLength: 2 });
function mutated(pairs: fc.Arbitrary<Pairs>): fc.Arbitrary<Pairs> {
  return fc.tuple(pairs, mutations).map(([base, ms]) => {
    const out: Pairs = base.map(([k, v]) => [k, v]);
    for (const m of ms) {
      const i = out.length ? m.at % out.length : 0;
      if (m.op === 'add' || !out.length) out.push([m.key, m.value]);
      else if (m.op === 'replace') out[i]![1] = m.value;
      else if (m.op === 'drop') out.splice(i, 1);
      else out.push([out[i]![0], m.value]);
    }
    return out;
  });
}

/** A valid report range (at most a year, as documented) with optional meeting and grouping. */
function reportPairs(days: fc.Arbitrary<string>): fc.Arbitrary<Pairs> {
  return mutated(fc.tuple(days, fc.integer({ min: 0, max: 370 }), fc.option(fc.constantFrom('100', '200'), { nil: undefined }),
    fc.array(fc.array(groupKey, { maxLength: 4 }).map((k) => k.join(',')), { maxLength: 2 })).map(([from, span, meeting, groups]) => [
    ['from', from], ['to', new Date(Date.parse(from) + span * 86_400_000).toISOString().slice(0, 10)] as [string, string],
    ...(meeting ? [['meeting_id', meeting] as [string, string]] : []), ...groups.map((g) => ['group_by', g] as [string, string]),
  ]));
}

const accept = fc.constantFrom(undefined, 'text/csv', 'application/json', 'text/csv;q=0.5, application/json;q=0.9', 'text/csv;q=abc', '*/*');

const answered = okShare();

async function readsWriteNothing(fn: () => Promise<void>): Promise<void> {
  const before = await tablesFingerprint(ctx.db.pool);
  await fn();
  assert.equal(await tablesFingerprint(ctx.db.pool), before, 'a read changed a table');
}

test('fuzz: any /reports/turnover query answers without a 5xx, 4xx as problem+json', async () => {
  await readsWriteNothing(() => fc.assert(fc.asyncProperty(reportPairs(isoDay('1900-01-01', '9999-12-31')), fc.boolean(), accept, async (pairs, asAuthority, type) => {
    const res = await ctx.app.inject({ url: `/reports/turnover?${query(pairs)}`, headers: { ...(asAuthority ? authority : operator), ...(type ? { accept: type } : {}) } });
    assertAnswer(res);
    answered.count(res.statusCode);
  }), fuzzRuns(300)));
  answered.check();
});

test('fuzz: any /reports/late-uploads query from 1960 on answers without a 5xx, 4xx as problem+json', async () => {
  await readsWriteNothing(() => fc.assert(fc.asyncProperty(reportPairs(isoDay('1960-01-01', '9999-12-31')), fc.boolean(), async (pairs, asAuthority) => {
    const res = await ctx.app.inject({ url: `/reports/late-uploads?${query(pairs)}`, headers: asAuthority ? authority : operator });
    assertAnswer(res);
    answered.count(res.statusCode);
  }), fuzzRuns(200)));
  answered.check();
});

test('fuzz: /reports/late-uploads over racing days before 1958 answers without a 5xx', async () => {
  // A bet of a 1950 racing day (meeting unknown: the racing day is the bet's date), received now: ~76 years late.
  const old = buildBet({ id: 'old-1', source: 'TAB', time: '1950-06-01T13:00:00+10:00' });
  const up = await ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', payload: { meeting_id: 555, race_number: 1, bets: [old] }, headers: operator });
  assert.equal(up.statusCode, 200, up.body);
  await fc.assert(fc.asyncProperty(isoDay('1949-07-01', '1950-06-01'), fc.integer({ min: 0, max: 300 }), async (from, span) => {
    const to = new Date(Date.parse(from) + span * 86_400_000).toISOString().slice(0, 10);
    const res = await ctx.app.inject({ url: `/reports/late-uploads?from=${from}&to=${to}`, headers: authority });
    assertAnswer(res);
  }), fuzzRuns(30));
});

const cursorJson = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.tuple(fc.oneof(fc.constantFrom('TAB', 'SKY', 'tab'), hostile), fc.oneof(fc.constantFrom('b1', 'b20'), nastyString(70), edgeNumber), fc.oneof(edgeNumber, nastyString(5))),
).map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url'));
const cursor = fc.oneof(cursorJson, nastyString(60), fc.base64String({ maxLength: 80 }));

test('fuzz: any /public/bets query or forged cursor answers without a 5xx, 4xx as problem+json', async () => {
  const pairs = mutated(fc.tuple(fc.constantFrom('100', '00100', '101'), fc.constantFrom('1', '01', '2'),
    fc.option(fc.constantFrom('TAB', 'sky'), { nil: undefined }), fc.option(fc.integer({ min: 1, max: 1000 }).map(String), { nil: undefined }),
    fc.option(cursor, { nil: undefined }),
  ).map(([meeting, race, source, limit, c]) => [['meeting_id', meeting], ['race_number', race],
    ...(source === undefined ? [] : [['source', source]]), ...(limit === undefined ? [] : [['limit', limit]]),
    ...(c === undefined ? [] : [['cursor', c]])] as Pairs));
  await readsWriteNothing(() => fc.assert(fc.asyncProperty(pairs, async (p) => {
    const res = await ctx.app.inject({ url: `/public/bets?${query(p)}`, headers: operator });
    assertAnswer(res);
    answered.count(res.statusCode);
  }), fuzzRuns(400)));
  answered.check();
});

test('fuzz: walking next_cursor with any page size returns every bet of the race once, in key order', async () => {
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.constantFrom(undefined, 'TAB', 'sky'), async (limit, source) => {
    const seen: string[] = [];
    let next: string | null = '';
    for (let page = 0; next !== null; page++) {
      assert.ok(page <= RACE_BETS, 'pagination does not end');
      const q: string = `meeting_id=100&race_number=1&limit=${limit}${source ? `&source=${source}` : ''}${next ? `&cursor=${next}` : ''}`;
      const res: Awaited<ReturnType<typeof ctx.app.inject>> = await ctx.app.inject({ url: `/public/bets?${q}`, headers: operator });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { bets: Array<{ source: string; id: string }>; next_cursor: string | null };
      assert.ok(body.bets.length <= limit);
      seen.push(...body.bets.map((b) => `${b.source}|${b.id}`));
      next = body.next_cursor;
    }
    const expected = Array.from({ length: RACE_BETS }, (_, i) => `${i % 3 ? 'TAB' : 'SKY'}|b${i}`)
      .filter((k) => !source || k.startsWith(source.toUpperCase())).sort();
    assert.deepEqual(seen, expected);
  }), fuzzRuns(40));
});

test('fuzz: a cursor with items beyond (source, id, leg) is refused', async () => {
  await fc.assert(fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }), async (extra) => {
    const forged = Buffer.from(JSON.stringify(['TAB', 'b1', 1, ...extra])).toString('base64url');
    const res = await ctx.app.inject({ url: `/public/bets?meeting_id=100&race_number=1&cursor=${forged}`, headers: operator });
    assertAnswer(res);
    assert.equal(res.statusCode, 400, `extra items ${JSON.stringify(extra)} answered ${res.statusCode}`);
  }), fuzzRuns(30));
});
