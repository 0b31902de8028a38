// Fuzzing both upload versions with generated valid batches and mutations of them (wrong types,
// missing and extra fields, huge and deeply nested values, odd Unicode, numbers and dates at their
// edges). A valid batch is stored; any other is a problem+json 4xx that names the faulty field
// and writes nothing; nothing is ever a 5xx. Replay a failure with FUZZ_SEED (test/helpers/fuzz.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { assertAnswer, deepJson, edgeInstant, edgeNumber, fuzzRuns, hostileValue, nastyString, okShare, tablesFingerprint } from './helpers/fuzz.ts';

let ctx: TestContext;
let auth: Record<string, string>;
before(async () => {
  ctx = await createTestApp();
  auth = (await seedClient(ctx, { agencies: ['TAB', 'SKY'] })).auth;
});
after(() => ctx.close());

type Version = 1 | 2;
const url = (v: Version) => (v === 1 ? '/public/uploadRace' : '/public/uploadRaceV2');
const text = (max: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }).filter((s) => s.trim() !== '');
const cents = (max: number) => fc.integer({ min: 0, max }).map((c) => c / 100);
const pastInstant = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2026-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().replace('Z', '+10:00'));

const runners = (min: number) => fc.tuple(fc.uniqueArray(fc.integer({ min: 1, max: 9999 }), { minLength: min, maxLength: 4 }), fc.constantFrom(',', ', ', ' ,'))
  .map(([r, separator]) => r.join(separator));
/** What makes a bet a runner bet (win/place) or an exotic (a selection of its type's shape). */
const kind = fc.oneof(
  fc.record({ type: fc.constantFrom('win', 'place', 'WIN'), runner_number: fc.integer({ min: 1, max: 9999 }) }),
  fc.record({ type: fc.constant('trifecta'), exotics_selection: fc.tuple(runners(1), runners(1), runners(1)).map((g) => g.join(' / ')) }),
  fc.record({ type: fc.constantFrom('exacta', 'quinella', 'firstfour'), exotics_selection: runners(4).map((g) => `${g} (boxed)`) }),
);

function validBet(v: Version) {
  return fc.tuple(kind, fc.record({
    source: fc.constantFrom('TAB', 'SKY', 'tab', ' Sky '),
    id: v === 1 ? fc.maxSafeNat() : text(16),
    time: pastInstant,
    user_id: text(20),
    user_name: fc.option(text(40), { nil: undefined }),
    user_state: fc.option(fc.constantFrom('NSW', 'vic', 'QLD'), { nil: undefined }),
    medium: fc.option(text(20), { nil: undefined }),
    resulted: fc.option(fc.boolean(), { nil: undefined }),
    status: fc.constantFrom('Paid', 'Cancelled', 'FullRefund', 'Unresulted', 'Pending', 'PartialRefund', 'paid'),
    bonus: fc.option(fc.boolean(), { nil: undefined }),
    amount: cents(1e8),
    price: fc.option(cents(1e5), { nil: undefined }),
    payout: fc.option(cents(1e9), { nil: undefined }),
    currency: fc.option(fc.constantFrom('AUD', 'nzd', 'USD'), { nil: undefined }),
  }, { requiredKeys: ['source', 'id', 'time', 'user_id', 'status', 'amount'] })).map(([k, bet]) => ({ ...bet, ...k }));
}

/** A valid batch: 1–5 bets with distinct keys (source and id differ after normalising). */
function validBatch(v: Version) {
  return fc.record({
    meeting_id: fc.oneof(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 1, max: 1e9 }).map(String)),
    race_number: fc.integer({ min: 1, max: 99 }),
    bets: fc.uniqueArray(validBet(v), { minLength: 1, maxLength: 5, selector: (b) => `${String(b.source).trim().toUpperCase()}|${b.id}` }),
  });
}

const BET_FIELDS = ['source', 'id', 'leg', 'time', 'type', 'runner_number', 'exotics_selection', 'user_id', 'user_name', 'user_state',
  'terminal_id', 'info_type', 'medium', 'resulted', 'status', 'bonus', 'back_indicator', 'bet_back_id', 'bet_back_agency',
  'bet_back_amount', 'bet_back_revenue', 'bet_back_date', 'amount', 'price', 'payout', 'net_result', 'unknown_field'];
const TOP_FIELDS = ['meeting_id', 'race_number', 'bets', 'extra'];

/** A replacement value for a field: anything hostile, biased to the field's own type's edges. */
const anyValue = fc.oneof(hostileValue, edgeNumber, edgeInstant, nastyString(64), fc.constant(undefined));

const mutation = fc.oneof(
  fc.record({ at: fc.constant('top' as const), field: fc.constantFrom(...TOP_FIELDS), value: anyValue }),
  fc.record({ at: fc.constant('bet' as const), index: fc.nat(4), field: fc.constantFrom(...BET_FIELDS), value: anyValue }),
  fc.record({ at: fc.constant('bet' as const), index: fc.nat(4), field: nastyString(), value: anyValue }),
  fc.record({ at: fc.constant('body' as const), value: hostileValue }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

/** Applies mutations in place; currency is left alone here (a deeply nested currency has its own property). */
function mutate(batch: Record<string, unknown>, mutations: Mutation[]): unknown {
  let body: unknown = batch;
  for (const m of mutations) {
    if (m.at === 'body') body = m.value;
    else if (!body || typeof body !== 'object' || Array.isArray(body)) continue;
    else if (m.at === 'top') (body as Record<string, unknown>)[m.field] = m.value;
    else {
      const bets = (body as { bets?: unknown }).bets;
      if (!Array.isArray(bets) || !bets.length) continue;
      const bet = bets[m.index % bets.length];
      if (bet && typeof bet === 'object') (bet as Record<string, unknown>)[m.field] = m.value;
    }
  }
  return body;
}

const answered = okShare(0.05);

function send(v: Version, body: unknown) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return ctx.app.inject({ method: 'POST', url: url(v), payload, headers: { ...auth, 'content-type': 'application/json' } });
}

test('fuzz: a generated valid batch is stored on both versions', async () => {
  await fc.assert(fc.asyncProperty(fc.constantFrom<Version>(1, 2).chain((v) => fc.tuple(fc.constant(v), validBatch(v))), async ([v, batch]) => {
    const res = await send(v, batch);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const out = res.json();
    assert.equal(out.received, batch.bets.length);
    assert.equal(out.created + out.updated + out.unchanged, batch.bets.length);
  }), fuzzRuns(200));
});

test('fuzz: a mutated batch is stored or refused as problem+json naming the field, never a 5xx, and a refusal writes nothing', async () => {
  const arb = fc.constantFrom<Version>(1, 2).chain((v) => fc.tuple(fc.constant(v), validBatch(v), fc.array(mutation, { minLength: 1, maxLength: 4 })));
  await fc.assert(fc.asyncProperty(arb, async ([v, batch, mutations]) => {
    const body = mutate(structuredClone(batch), mutations);
    const before = await tablesFingerprint(ctx.db.pool);
    const res = await send(v, body);
    assertAnswer(res);
    answered.count(res.statusCode);
    const after = await tablesFingerprint(ctx.db.pool);
    if (res.statusCode >= 400) assert.equal(after, before, 'a refused upload wrote rows');
    // The fingerprint must see writes too, or the check above would prove nothing.
    else if (res.json().created + res.json().updated > 0) assert.notEqual(after, before, 'a stored upload left no trace');
  }), fuzzRuns(600));
  answered.check();
});

test('fuzz: raw bodies that are not JSON, or JSON of any shape, never cause a 5xx', async () => {
  const raw = fc.oneof(nastyString(200), fc.json({ maxDepth: 4 }), fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
    // Nested far deeper than a recursive walk survives: as the body, and as a bet's field (not currency: it has its own property).
    fc.integer({ min: 1_000, max: 100_000 }).map((n) => deepJson(n)),
    fc.tuple(fc.constantFrom(...BET_FIELDS.filter((f) => f !== 'currency')), fc.integer({ min: 1_000, max: 100_000 }))
      .map(([field, n]) => `{"meeting_id":1,"race_number":1,"bets":[{"${field}":${deepJson(n, '{}')}}]}`));
  await fc.assert(fc.asyncProperty(fc.constantFrom<Version>(1, 2), raw, async (v, payload) => {
    const before = await tablesFingerprint(ctx.db.pool);
    const res = await ctx.app.inject({ method: 'POST', url: url(v), payload, headers: { ...auth, 'content-type': 'application/json' } });
    assertAnswer(res);
    if (res.statusCode >= 400) assert.equal(await tablesFingerprint(ctx.db.pool), before);
  }), fuzzRuns(200));
});

test('fuzz: a deeply nested non-string currency is a 400, not a 5xx', async () => {
  await fc.assert(fc.asyncProperty(validBatch(2), fc.integer({ min: 2_000, max: 50_000 }), async (batch, depth) => {
    const body = structuredClone(batch); // fast-check re-uses generated values while shrinking
    (body.bets[0] as Record<string, unknown>).currency = 'DEEP';
    const payload = JSON.stringify(body).replace('"DEEP"', deepJson(depth));
    const res = await ctx.app.inject({ method: 'POST', url: url(2), payload, headers: { ...auth, 'content-type': 'application/json' } });
    assertAnswer(res);
    assert.equal(res.statusCode, 400);
  }), fuzzRuns(20));
});

test('fuzz: a refusal stays small however large the refused value', async () => {
  const field = fc.constantFrom('source', 'type', 'status', 'user_state', 'currency', 'exotics_selection', 'time');
  await fc.assert(fc.asyncProperty(validBatch(2), field, fc.integer({ min: 10_000, max: 200_000 }), async (batch, name, size) => {
    const body = structuredClone(batch); // fast-check re-uses generated values while shrinking
    (body.bets[0] as Record<string, unknown>)[name] = 'x'.repeat(size);
    const res = await send(2, body);
    assertAnswer(res);
    assert.ok(res.body.length < 16_384, `a ${res.statusCode} of ${res.body.length} bytes for a ${size}-character ${name}`);
  }), fuzzRuns(30));
});
