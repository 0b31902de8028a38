// Properties of the turnover report over random bets uploaded through the real endpoint: the
// ungrouped totals of each currency equal a model computed here in integer cents, and the rows of
// any grouping sum to them (every bet in exactly one group, a multi-leg bet once, no two
// currencies in one row).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';
import { GROUP_KEYS } from './reports.queries.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
  ctx.clock.set(new Date('2024-05-01T18:00:00+10:00'));
  await ctx.services.catalogue.importMeetings([100, 200].map((id) => ({ meeting_id: id, date: '2024-05-01', venue: `V${id}`, jurisdiction: 'NSW', code: 'T' as const, races: [] })));
});
after(() => ctx.close());

const STATUSES = ['Paid', 'Cancelled', 'FullRefund', 'Unresulted', 'Pending', 'PartialRefund'];
const betArb = fc.record({
  multiLegs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
  amount: fc.integer({ min: 1, max: 100_000 }), // cents
  payout: fc.integer({ min: 0, max: 500_000 }),
  betBack: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
  status: fc.constantFrom(...STATUSES),
  state: fc.constantFrom('NSW', 'VIC', 'QLD'),
  medium: fc.constantFrom('internet', 'phone', undefined),
  bonus: fc.boolean(),
  source: fc.constantFrom('TAB', 'SKY'),
  meeting: fc.constantFrom(100, 200),
  race: fc.integer({ min: 1, max: 4 }),
  currency: fc.constantFrom('AUD', 'NZD'),
});
const keysArb = fc.subarray(Object.keys(GROUP_KEYS), { minLength: 1, maxLength: 4 });

const cents = (money: unknown) => Math.round(Number(money) * 100);
const figures = (r: Record<string, unknown>) =>
  [r.bets, r.void_bets, cents(r.turnover), cents(r.bonus_turnover), cents(r.bet_back_turnover), cents(r.payout), cents(r.net_result)] as number[];

test('property: totals equal the model, and any grouping sums to the ungrouped totals', async () => {
  let run = 0;
  await fc.assert(fc.asyncProperty(fc.array(betArb, { minLength: 1, maxLength: 40 }), keysArb, async (bets, keys) => {
    run += 1;
    const operator = await seedClient(ctx, { agencies: ['TAB', 'SKY'] });
    const races = new Map<string, Record<string, unknown>[]>();
    bets.forEach((b, i) => {
      const legs = b.multiLegs || 1;
      for (let leg = 1; leg <= legs; leg++) {
        const key = `${b.meeting}/${b.race + leg - 1}`;
        if (!races.has(key)) races.set(key, []);
        races.get(key)!.push(buildBet({
          id: `p${run}-${i}`, source: b.source, leg, type: b.multiLegs ? 'multi' : 'win', amount: b.amount / 100, payout: b.payout / 100,
          net_result: undefined, status: b.status, user_state: b.state, medium: b.medium, bonus: b.bonus, currency: b.currency,
          ...(b.betBack === undefined ? {} : { back_indicator: true, bet_back_amount: b.betBack / 100 }),
        }));
      }
    });
    for (const [key, list] of races) {
      const [meeting, race] = key.split('/').map(Number);
      const res = await ctx.app.inject({
        method: 'POST', url: '/public/uploadRaceV2', headers: { ...operator.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ meeting_id: meeting, race_number: race, bets: list }),
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const get = async (query: string) => {
      const res = await ctx.app.inject({ url: `/reports/turnover?from=2024-05-01&to=2024-05-01${query}`, headers: operator.auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().rows as Record<string, unknown>[];
    };
    const sum = (list: typeof bets, f: (b: (typeof bets)[number]) => number) => list.reduce((n, b) => n + f(b), 0);
    const modelOf = (currency: string) => {
      const all = bets.filter((b) => b.currency === currency);
      const counted = all.filter((b) => b.status !== 'Cancelled' && b.status !== 'FullRefund');
      return [all.length, all.length - counted.length, sum(counted, (b) => b.amount), sum(counted, (b) => (b.bonus ? b.amount : 0)),
        sum(counted, (b) => b.betBack ?? 0), sum(counted, (b) => b.payout), sum(counted, (b) => b.amount - b.payout)];
    };
    const currencies = [...new Set(bets.map((b) => b.currency))].sort();
    const totals = await get('');
    assert.deepEqual(totals.map((r) => [r.currency, ...figures(r)]), currencies.map((c) => [c, ...modelOf(c)]), 'one row of totals per currency');
    const grouped = await get(`&group_by=${keys.join(',')}`);
    for (const c of currencies) {
      const summed = grouped.filter((r) => r.currency === c).map(figures).reduce((acc, f) => acc.map((v, i) => v + f[i]!));
      assert.deepEqual(summed, modelOf(c));
    }
    const distinct = new Set(grouped.map((r) => JSON.stringify([...keys, 'currency'].map((k) => r[k]))));
    assert.equal(distinct.size, grouped.length, 'each group appears once');
  }), { numRuns: 25 });
});
