// A betting bench for service-level tests: a fresh database, the reference wallet on 127.0.0.1, the
// services as the composition root builds them, one tenant with that wallet, and one open race.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { Config } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { Pool } from '../src/db/pool.ts';
import type { BettingUser } from '../src/modules/betting/betting.service.ts';
import { getRace } from '../src/modules/catalogue/races.queries.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase } from './helpers/db.ts';
import { CLIENT } from './wallet-fixtures.ts';

export interface BettingFixtureOptions {
  walletLatencyMs?: number;
  /** Overrides of the configuration; names the configuration does not declare (yet) are passed on as given. */
  settings?: Partial<Config> & Record<string, unknown>;
  /** The services' clock (default: the real one); the wallet sandbox keeps the real time. */
  clock?: () => Date;
  /** Every user's bonus balance at the sandbox (default 0: a bonus bet is refused). */
  openingBonus?: string;
  /** Where the services' metrics go (default: none). */
  registry?: Registry;
}

/** Race 1 of `meetingId`, starting in an hour: runners 1-4 at win prices 3, 4, 5 and 6. */
export async function bettingFixture(meetingId: number, options: BettingFixtureOptions = {}) {
  const db = await freshDatabase();
  const sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, latencyMs: options.walletLatencyMs ?? 0,
    ...(options.openingBonus && { openingBonus: options.openingBonus }) });
  const box = createSecretBox(randomBytes(32));
  const services = testServices(db, box, {
    ...(options.settings && { settings: options.settings }), ...(options.clock && { clock: options.clock }),
    ...(options.registry && { registry: options.registry }),
  });
  const tenantId = (await services.tenants.createTenant({ name: 'Betting' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'exacta'],
      runners: [1, 2, 3, 4].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) }],
  });
  /** A signed-in user of the tenant (a custom token: the wallet sandbox takes any). */
  const user = (userId: string): BettingUser => ({ tenantId, userId, token: 'custom-token', metadata: { userId, brandName: 'Test', brandUserId: userId, data: '{}' }, tenantTimezoneUsable: true });
  return {
    db, box, sandbox, services, tenantId, user,
    /** A WIN of 10 by `userId` on `runner` of race 1, at its imported price. */
    placeWin: (userId: string, runner: number) => services.betting.placeBet(user(userId), {
      idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId, raceNumber: 1, selections: [[runner]], price: 2 + runner }],
    }),
    /** The bet of `userId` as stored (placement stores it, pending, before the wallet is asked). */
    async betOf(userId: string) {
      const { rows } = await db.pool.query<{ bet_id: string; status: string; reason_code: string | null }>(
        'SELECT bet_id, status, reason_code FROM bets WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId]);
      return rows[0];
    },
    /** The operations of the bet's requests that reached the wallet, in order. */
    sentOps: (betId: string) => sandbox.requests().filter((r) => (r.body as { betId?: string } | undefined)?.betId === betId).map((r) => r.op),
    /** The bet's wallet calls as stored, "op status amount", without the released placement guard (skipped). */
    async storedCalls(betId: string) {
      const { rows } = await db.pool.query<{ call: string }>(
        "SELECT op || ' ' || status || ' ' || amount AS call FROM wallet_calls WHERE bet_id = $1 AND status <> 'skipped' ORDER BY seq", [betId]);
      return rows.map((r) => r.call);
    },
    async close() {
      await services.close();
      await sandbox.close();
      await db.drop();
    },
  };
}

/** bettingFixture with a wallet worker of its own, not started (`worker.drain()` delivers what is queued); close() stops both. */
export async function bettingFixtureWithWorker(meetingId: number, options: BettingFixtureOptions = {}) {
  const f = await bettingFixture(meetingId, options);
  const worker = f.services.wallet.createWorker({ listen: false });
  return { ...f, worker, async close() { await worker.stop(); await f.close(); } };
}

/** Races `numbers` of the meeting, dated today, starting in two hours: `runners` runners 1…n at win prices 3, 4, …, place 1.50. */
export function importRaces(f: { services: { catalogue: { importCatalog(input: unknown): Promise<unknown> } } }, meetingId: number, numbers: number[],
  products: string[], runners: number) {
  return f.services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: numbers.map((race_number) => ({ race_number, start_time: new Date(Date.now() + 7200_000).toISOString(), products,
      runners: Array.from({ length: runners }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 3 + i, place: 1.5 })) })),
  });
}

/**
 * A transaction of the test's own holding the race's row locked as a catalogue change does (the
 * catalogue's own statement, FOR NO KEY UPDATE): a take's share lock on the race waits for it.
 * `client` runs more of the change in that transaction; commit or rollback ends it (once).
 */
export async function holdRace(pool: Pool, meetingId: number, raceNumber = 1) {
  const client = await pool.connect();
  await client.query('BEGIN');
  await getRace(client, meetingId, raceNumber, 'update');
  let open = true;
  const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    try {
      await client.query(sql);
    } finally {
      client.release();
    }
  };
  return { client, commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
}

/** Whether some backend of this database waits for a lock (the take, behind holdRace). */
export async function lockWaited(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return rows[0]!.n > 0;
}
