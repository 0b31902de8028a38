// A `wagerline serve` killed with SIGKILL in the middle of settling a race: the batch it was writing
// rolls back whole, and the next serve carries the settlement on from the job's cursor. Every bet
// is settled exactly once — one settleBet each, the wallet's balances to the cent, every wallet
// transaction taking effect once.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { startWalletSandbox, type WalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import { betMix, insertPlacedBets, sandboxSeeds } from '../factories/placed-bets.ts';
import { testServices } from '../helpers/app.ts';
import { cliEnv, startCli } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/net.ts';
import { checkSettledOnce } from '../helpers/settlement-check.ts';
import { CLIENT, until } from '../wallet-fixtures.ts';

const MEETING = 880201;
const BETS = 3000;
let db: TestDatabase;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let services: ReturnType<typeof testServices>;
let tenantId: string;

before(async () => {
  db = await freshDatabase();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, openingBalance: '100000.00', openingBonus: '10000.00' });
  // Small batches and a quick poll: the settlement takes long enough to be killed half-way.
  env = cliEnv(db.url, { WAGERLINE_SETTLEMENT_BATCH: '25', WAGERLINE_SETTLEMENT_POLL_MS: '100', WAGERLINE_WALLET_POLL_MS: '100' });
  services = testServices(db, createSecretBox(Buffer.from(env.WAGERLINE_SECRET_KEY!, 'base64')));
  tenantId = (await services.tenants.createTenant({ name: 'Crash settlement' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  const runners = Array.from({ length: 10 }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: Math.round(120 + 10 * i) / 100 }));
  await services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'], runners }],
  });
  const placed = await insertPlacedBets(db.pool, services.catalogue, tenantId, betMix({ count: BETS, meetingId: MEETING, raceNumber: 1, runners: 10, seed: 7 }));
  await sandbox.seedBets(sandboxSeeds(placed));
});

after(async () => {
  await services.close();
  await sandbox.close();
  await db.drop();
});

const job = async () => (await db.pool.query<{ status: string; bets_seen: number }>('SELECT status, bets_seen FROM settlement_jobs ORDER BY job_id DESC LIMIT 1')).rows[0];

test('SIGKILL mid-settlement: after a restart every bet is settled exactly once', { timeout: 180_000 }, async () => {
  const first = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  await services.catalogue.setStatus(MEETING, 1, 'closed');
  // Recorded here, settled by the serve's worker: the result's transaction queues the race.
  await services.catalogue.recordResult(MEETING, 1, { placings: [[3], [1], [4], [2]], dividends: { exacta: 14.6, quinella: 7.2, trifecta: 88.1, firstfour: 402.5 } });
  await until('the serve to be settling the race', async () => ((await job())?.bets_seen ?? 0) >= 300, 60_000);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const halfway = await job();
  assert.equal(halfway!.status, 'pending', 'killed before the settlement finished');
  assert.ok(halfway!.bets_seen < BETS, `killed half-way: ${halfway!.bets_seen} of ${BETS} seen`);

  const second = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  try {
    await until('the settlement to finish', async () => (await job())!.status === 'done', 120_000);
    const check = () => checkSettledOnce(db.pool, tenantId, { meetingId: MEETING, raceNumber: 1 }, {
      effects: () => sandbox.effects(),
      balances: async (ids) => new Map(await Promise.all(ids.map(async (id) => [id, await sandbox.balances(id)] as const))),
    }, { cash: '100000.00', bonus: '10000.00' });
    await until('every wallet call to be delivered', async () => (await check()).problems.length === 0, 120_000);
    const settled = await check();
    assert.equal(settled.bets, BETS);
    assert.equal(settled.calls.settleBet, BETS);
    const { rows: [{ n }] } = await db.pool.query('SELECT count(*)::int AS n FROM bet_history WHERE cause = $1', ['result']);
    assert.equal(n, BETS, 'one settlement entry per bet in the history');
  } finally {
    second.child.kill('SIGTERM');
  }
});
