// A race day end to end with the real `wagerline serve` and the reference wallet: users place bets
// of several kinds through /graphql, the race is closed, resulted, amended (a protest upheld), a
// runner of another race scratched and that race resulted, and some bets cancelled — all through
// the real CLI — and every user's balance at the wallet is checked to the cent.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startWalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { cliEnv, runCli, startCli } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { CLIENT, until } from '../wallet-fixtures.ts';

const MEETING = 880101;
let db: TestDatabase;
let idp: TestJwks;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let tenantId: string;
let serve: Awaited<ReturnType<typeof startCli>>;

const cli = async (args: string[]) => {
  const res = await runCli(args, env);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  return res.json();
};

before(async () => {
  db = await freshDatabase();
  idp = await TestJwks.start();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  env = cliEnv(db.url, { WAGERLINE_WALLET_POLL_MS: '100' });
  tenantId = (await cli(['tenant', 'create', '--name', 'Settlement E2E'])).tenant_id;
  await cli(['tenant', 'set-wallet', tenantId, '--url', sandbox.url, '--auth', 'client_credentials', '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret]);
  await cli(['tenant', 'set-auth', tenantId, '--mode', 'jwt', '--jwks-url', idp.url, '--client-id', idp.clientId]);
  const runners = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `Runner ${n}`, win: [0, 2.5, 3.2, 4, 5.5, 7, 9, 12, 21][n], place: [0, 1.3, 1.5, 1.7, 2, 2.4, 2.8, 3.5, 5][n] }));
  const start = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();
  const file = path.join(env.WAGERLINE_DATA_DIR!, 'day.json');
  writeFileSync(file, JSON.stringify({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Randwick', jurisdiction: 'NSW', code: 'T',
    races: [1, 2].map((r) => ({ race_number: r, start_time: start(r), products: ['win', 'place', 'exacta', 'trifecta'], runners })),
  }));
  await cli(['catalog', 'import', file]);
  // Each CLI command below settles its race itself and reports what it changed; serve's settlement
  // worker, polling as often as the CLI's, could take a queued race first and leave that report at 0.
  serve = await startCli(['serve'], { ...env, PORT: String(await freePort()), WAGERLINE_SETTLEMENT_POLL_MS: '600000' });
});

after(async () => {
  serve?.child.kill('SIGTERM');
  await sandbox.close();
  await idp.close();
  await db.drop();
});

async function place(userId: string, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${serve.first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({ query: 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }', variables: { input: { idempotencyKey: randomUUID(), ...input } } }),
  });
  const body = (await res.json()) as { data?: { placeBet: { id: string; status: string } }; errors?: unknown };
  assert.equal(body.data?.placeBet.status, 'ACCEPTED', JSON.stringify(body));
  return body.data!.placeBet.id;
}

const leg = (race: number, runners: number[], price?: number) => ({ meetingId: MEETING, raceNumber: race, selections: [runners], ...(price && { price }) });

test('a race day placed, resulted, amended, scratched and partly cancelled: every balance to the cent', { timeout: 120_000 }, async () => {
  const u = Object.fromEntries(['win', 'place', 'exacta', 'loser', 'cancelled', 'scratched', 'trifecta'].map((k) => [k, randomUUID()]));
  const bets = {
    win: await place(u.win!, { type: 'WIN', stake: 10, legs: [leg(1, [2], 3.2)] }),                 // 2 wins, then loses on protest
    place: await place(u.place!, { type: 'PLACE', stake: 20, legs: [leg(1, [1], 1.3)] }),           // 1 placed both times
    exacta: await place(u.exacta!, { type: 'EXACTA', stake: 6, boxed: true, legs: [leg(1, [1, 2, 3])] }),
    loser: await place(u.loser!, { type: 'WIN', stake: 5, legs: [leg(1, [8], 21)] }),
    cancelled: await place(u.cancelled!, { type: 'WIN', stake: 12.5, legs: [leg(1, [1], 2.5)] }),
    scratched: await place(u.scratched!, { type: 'WIN', stake: 4, legs: [leg(2, [5], 7)] }),
    trifecta: await place(u.trifecta!, { type: 'TRIFECTA', stake: 12, boxed: true, legs: [leg(2, [1, 2, 3, 5])] }), // 24 combinations at 50 %
  };
  await cli(['bet', 'cancel', tenantId, bets.cancelled, '--reason', 'customer asked']);
  await cli(['race', 'status', String(MEETING), '1', 'closed']);
  const first = await cli(['race', 'result', String(MEETING), '1', '--placings', '[[2],[1],[3]]', '--dividends', '{"exacta": 14.2}']);
  assert.equal(first.settlement.bets_changed, 4);
  const amended = await cli(['race', 'result', String(MEETING), '1', '--placings', '[[1],[2],[3]]', '--dividends', '{"exacta": 9.8}']);
  assert.equal(amended.amended, true);

  const scratch = await cli(['race', 'scratch', String(MEETING), '2', '5']);
  assert.equal(scratch.settlement.bets_changed, 1); // the win bet on 5 is refunded at once
  await cli(['race', 'status', String(MEETING), '2', 'closed']);
  await cli(['race', 'result', String(MEETING), '2', '--placings', '[[3],[1],[2],[4]]', '--dividends', '{"trifecta": 61.4}']);

  const expected: Record<string, string> = {
    win: '990.00',       // 10 at 3.20 paid 32.00, reversed on protest
    place: '1006.00',    // 20 × 1.30 = 26.00, paid once: the amendment leaves runner 1 placed
    exacta: '1003.80',   // 6 combinations at 100 %: 1-2 pays 9.80 (14.20 first, 4.40 reversed)
    loser: '995.00',
    cancelled: '1000.00',
    scratched: '1000.00',
    trifecta: '1027.70', // 18 of 24 combinations hold 5: 9.00 back; 3-1-2 pays 61.40 × 50 % = 30.70; 1000 − 12 + 9 + 30.70
  };
  for (const [who, cash] of Object.entries(expected)) {
    await until(`${who}'s balance to settle at ${cash}`, async () => (await sandbox.balances(u[who]!)).cash === cash, 30_000);
  }
  for (const [transactionId, times] of await sandbox.effects()) assert.equal(times, 1, `${transactionId} took effect ${times} times`);
  const history = await cli(['bet', 'history', tenantId, bets.win]);
  assert.deepEqual(history.history.map((h: { cause: string }) => h.cause), ['placement', 'accepted', 'result', 'amendment']);
});
