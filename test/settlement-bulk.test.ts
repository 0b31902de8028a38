// Bets written in bulk by test/factories/placed-bets.ts are the rows placement writes, and a race
// of them settles through the wallet exactly once (the setup of npm run bench:settlement, small).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { PlaceBetInput } from '../src/modules/betting/placement.ts';
import { startWalletSandbox, type WalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import { betMix, insertPlacedBets, sandboxSeeds } from './factories/placed-bets.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { checkSettledOnce } from './helpers/settlement-check.ts';
import { CLIENT } from './wallet-fixtures.ts';

const MEETING = 770301;
let db: TestDatabase;
let sandbox: WalletSandbox;
let services: ReturnType<typeof testServices>;

async function tenantWithWallet(name: string): Promise<string> {
  const tenantId = (await services.tenants.createTenant({ name })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  return tenantId;
}

before(async () => {
  db = await freshDatabase();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, openingBalance: '100000.00', openingBonus: '10000.00' });
  services = testServices(db, createSecretBox(randomBytes(32)));
  const runners = Array.from({ length: 10 }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: Math.round(120 + 10 * i) / 100 }));
  await services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [1, 2].map((n) => ({ race_number: n, start_time: new Date(Date.now() + n * 3600_000).toISOString(),
      products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'], runners })),
  });
});
after(async () => {
  await services.close();
  await sandbox.close();
  await db.drop();
});

/** Every row a bet left, with ids and times taken out (they differ between any two bets). */
async function rowsOf(betId: string) {
  const q = async (sql: string) => (await db.pool.query(sql, [betId])).rows;
  const [bet] = await q(`SELECT kind, status, stake, accepted_stake, combinations, original_percentage, percentage, original_odds, fixed_odds,
                                boxed, bonus, bet_limit, reason_code, reason, medium, ip_address, request_hash, result, payout, refunded, settled_at
                           FROM bets WHERE bet_id = $1`);
  const legs = await q(`SELECT leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price
                          FROM bet_legs WHERE bet_id = $1 ORDER BY leg`);
  const history = await q('SELECT seq, from_status, to_status, cause, detail FROM bet_history WHERE bet_id = $1 ORDER BY seq');
  const calls = (await q(`SELECT seq, op, amount, amount_unit, bonus_flag, extra, secret_enc, only_if_reserved, placement_guard, status, failures,
                                 attempts, last_http_status, last_code, last_error, lease_owner, note, finished_at IS NOT NULL AS finished
                            FROM wallet_calls WHERE bet_id = $1 ORDER BY seq`))
    .map((c) => {
      const meta = c.extra.betMetadata;
      return meta ? { ...c, extra: { betMetadata: { ...meta, id: 'bet', ticketId: 'ticket', createdAt: 'at' } } } : c;
    });
  const attempts = await q(`SELECT a.attempt, a.http_status, a.outcome, a.error FROM wallet_call_attempts a
                              JOIN wallet_calls c USING (tenant_id, transaction_id) WHERE c.bet_id = $1 ORDER BY c.seq`);
  const seq = await q('SELECT last_seq FROM wallet_bet_sequences WHERE bet_id = $1');
  return { bet, legs, history, calls, attempts, seq };
}

test('bulk-placed bets are the rows placeBet writes: bet, legs, history, liability, the outbox of a delivered reserve and confirm', async () => {
  const tenantId = await tenantWithWallet('Rows');
  const userId = randomUUID();
  const inputs: Array<Omit<PlaceBetInput, 'idempotencyKey'>> = [
    { type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[1]], price: 2 }] },
    { type: 'PLACE', stake: 4.5, bonus: true, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[3]], price: 1.4 }] },
    { type: 'TRIFECTA', stake: 6, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[1], [2, 3], [2, 3, 4]] }] },
    { type: 'FIRST_FOUR', stake: 12, boxed: true, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[1, 2, 3, 4, 5]] }] },
    { type: 'MULTI', stake: 5, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 3 }, { meetingId: MEETING, raceNumber: 2, selections: [[1]], price: 2 }] },
  ];
  const user = { tenantId, userId, token: 't', metadata: { userId, brandName: 'Bench', brandUserId: userId, data: '{}' }, tenantTimezoneUsable: true };
  const placed = [];
  for (const input of inputs) placed.push((await services.betting.placeBet(user, { idempotencyKey: randomUUID(), ...input })).id);
  const worker = services.wallet.createWorker({ listen: false });
  await worker.drain();
  const { rows: liabilityBefore } = await db.pool.query('SELECT runner, kind, liability FROM runner_liability WHERE tenant_id = $1 ORDER BY 1, 2', [tenantId]);

  const bulk = await insertPlacedBets(db.pool, services.catalogue, tenantId, inputs.map((input) => ({ userId, input: { idempotencyKey: randomUUID(), ...input } })));
  assert.equal(bulk.length, inputs.length);
  await sandbox.seedBets(sandboxSeeds(bulk)); // so that the next test can settle them too
  for (const [i, betId] of placed.entries()) {
    const [want, got] = [await rowsOf(betId), await rowsOf(bulk[i]!.betId)];
    assert.deepEqual(got, want, inputs[i]!.type);
  }
  const { rows: liabilityAfter } = await db.pool.query('SELECT runner, kind, liability FROM runner_liability WHERE tenant_id = $1 ORDER BY 1, 2', [tenantId]);
  assert.deepEqual(liabilityAfter, liabilityBefore.map((r) => ({ ...r, liability: (2 * Number(r.liability)).toFixed(2) })));
});

test('a race of bulk-placed bets, seeded at the wallet, settles once: one settleBet per bet, balances to the cent', async () => {
  const tenantId = await tenantWithWallet('Bulk');
  const planned = betMix({ count: 300, meetingId: MEETING, raceNumber: 2, runners: 10, multiRace: 1, users: 40, seed: 3 });
  const placed = await insertPlacedBets(db.pool, services.catalogue, tenantId, planned, { chunk: 120 });
  assert.deepEqual(new Set(placed.map((p) => p.kind)), new Set(['WIN', 'PLACE', 'MULTI', 'TRIFECTA', 'EXACTA', 'QUINELLA', 'FIRST_FOUR']));
  await sandbox.seedBets(sandboxSeeds(placed));

  for (const race of [1, 2]) await services.catalogue.setStatus(MEETING, race, 'closed');
  await services.catalogue.recordResult(MEETING, 1, { placings: [[2], [5], [7], [8]] });
  await services.settlement.runPending(); // the multis wait for race 2
  const result = await services.settlement.resultRace(MEETING, 2, {
    placings: [[3], [1], [4], [2]], dividends: { exacta: 14.6, quinella: 7.2, trifecta: 88.1, firstfour: 402.5 },
  });
  assert.equal(result.settlement!.bets_changed, 310); // and the 10 bets of the test before
  assert.deepEqual(result.settlement!.problems, []);
  const check = () => checkSettledOnce(db.pool, tenantId, { meetingId: MEETING, raceNumber: 2 }, {
    effects: () => sandbox.effects(),
    balances: async (ids) => new Map(await Promise.all(ids.map(async (id) => [id, await sandbox.balances(id)] as const))),
  }, { cash: '100000.00', bonus: '10000.00' });
  const undelivered = await check();
  assert.match(undelivered.problems.join('\n'), /300 settleBet call\(s\) pending/);
  const worker = services.wallet.createWorker({ listen: false });
  await worker.drain();

  const settled = await check();
  assert.deepEqual(settled.problems, []);
  assert.equal(settled.bets, 300);
  assert.equal(settled.calls.settleBet, 300);
  const { rows: [won] } = await db.pool.query("SELECT count(*)::int AS n FROM bets WHERE tenant_id = $1 AND result = 'won'", [tenantId]);
  assert.ok(won.n > 20 && won.n < 200, `${won.n} winners`);
});
