// The delivery worker: claims due calls of each tenant's wallet (never more in flight than the
// wallet's concurrency, across all processes), sends them, and records the outcome of each round
// in batched statements. A bet's calls go one at a time in sequence order because the claim only
// takes a call when every earlier call of its bet is finished (wallet_claim in 0003_wallet.sql).
// Wake-ups: LISTEN wallet_calls (enqueue notifies at commit), after each recorded batch, and a
// poll every WAGERLINE_WALLET_POLL_MS for retries that came due and leases that ran out.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Pool } from '../../db/pool.ts';
import { buildBody, type Operation } from './wallet.body.ts';
import type { Attempt, WalletEndpoint, WalletHttp } from './wallet.client.ts';
import { endpointOf } from './wallet-config.service.ts';
import type { WalletMetrics } from './wallet.metrics.ts';
import * as oq from './outbox.queries.ts';
import { listWalletConfigs, type CallRow } from './wallet.queries.ts';
import { rescueOrphanedReserves } from './wallet.reserve.ts';
import { afterFailure } from './wallet.rules.ts';

export interface WalletWorkerOptions {
  db: Pool;
  box: SecretBox;
  http: WalletHttp;
  clock?: () => Date;
  leaseMs: number;
  pollMs: number;
  /** LISTEN for wake-ups on this database (omit: poll only). */
  listenUrl?: string;
  /** Most calls claimed by one statement. */
  batch?: number;
  metrics?: WalletMetrics;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

interface TenantState {
  endpoint: WalletEndpoint;
  inflight: number;
  claiming?: Promise<number>;
}

interface Done {
  row: CallRow;
  result: oq.CallResult;
  attempts: oq.AttemptRecord[];
  refused: boolean;
}

export function createWalletWorker(options: WalletWorkerOptions) {
  const { db, box, http, leaseMs, pollMs, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  const batch = options.batch ?? 100;
  const log = options.log ?? (() => undefined);
  const workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const tenants = new Map<string, TenantState>();
  const inFlight = new Map<string, { tenant_id: string; transaction_id: string; owner: string }>();
  const deliveries = new Set<Promise<void>>();
  let claims = 0;
  let buffer: Done[] = [];
  let flushing: Promise<void> | undefined;
  let running = false;
  let timers: NodeJS.Timeout[] = [];
  let listener: pg.Client | undefined;
  let configsLoaded = 0;

  async function refreshConfigs(): Promise<void> {
    for (const row of await listWalletConfigs(db)) {
      const state = tenants.get(row.tenant_id);
      if (state && state.endpoint.version === row.updated_at.toISOString()) continue;
      const endpoint = endpointOf(row, box);
      if (state) state.endpoint = endpoint;
      else tenants.set(row.tenant_id, { endpoint, inflight: 0 });
    }
    configsLoaded = Date.now();
  }

  /** Claims what the tenant's free slots allow and starts sending; resolves with the count. */
  function pump(tenantId: string): Promise<number> {
    const state = tenants.get(tenantId);
    if (!state) return Promise.resolve(0);
    if (state.claiming) return state.claiming;
    const limit = state.endpoint.concurrency;
    const free = limit - state.inflight;
    if (free <= 0) return Promise.resolve(0);
    const owner = `${workerId}/${++claims}`;
    const now = clock();
    state.claiming = oq
      .claim(db, { tenantId, now, max: Math.min(free, batch), limit, owner, leaseUntil: new Date(now.getTime() + leaseMs) })
      .then((rows) => {
        for (const row of rows) start(state, row, owner);
        return rows.length;
      })
      .finally(() => {
        state.claiming = undefined;
      });
    return state.claiming;
  }

  function start(state: TenantState, row: CallRow, owner: string): void {
    state.inflight++;
    const key = `${row.tenant_id}/${row.transaction_id}`;
    inFlight.set(key, { tenant_id: row.tenant_id, transaction_id: row.transaction_id, owner });
    const p = deliver(state.endpoint, row, owner)
      .catch((error: unknown) => log('wallet delivery crashed', { err: String(error), transactionId: row.transaction_id }))
      .finally(() => {
        state.inflight--;
        inFlight.delete(key);
        deliveries.delete(p);
      });
    deliveries.add(p);
  }

  async function deliver(endpoint: WalletEndpoint, row: CallRow, owner: string): Promise<void> {
    const body = buildBody(
      {
        op: row.op as Operation,
        transactionId: row.transaction_id,
        betId: row.bet_id,
        userId: row.user_id,
        bonusFlag: row.bonus_flag,
        amount: row.amount,
        extra: row.extra,
        ...(row.secret_enc && { token: box.open(row.secret_enc) }),
      },
      row.amount_unit,
    );
    const sent = await http.send(endpoint, row.op, body, row.transaction_id);
    buffer.push(outcome(row, owner, sent));
    scheduleFlush();
  }

  function outcome(row: CallRow, owner: string, sent: Attempt[]): Done {
    const now = clock();
    const last = sent[sent.length - 1]!;
    // A 401 that survived a token renewal: for reserve the wallet refused the placement token
    // (spec 7.2); for the other calls our credentials are wrong, which the operator can fix, so
    // the call keeps its place and follows the schedule.
    const verdict = last.verdict === 'unauthorized' ? (row.op === 'reserve' ? 'final' : 'retry') : last.verdict;
    const base = {
      tenant_id: row.tenant_id,
      transaction_id: row.transaction_id,
      owner,
      attempts: row.attempts + sent.length,
      last_http_status: last.httpStatus,
      last_code: last.code ?? null,
      last_error: last.error ?? last.message ?? (verdict === 'success' ? null : `HTTP ${last.httpStatus}`),
    };
    let result: oq.CallResult;
    if (verdict === 'success') {
      result = { ...base, status: 'delivered', failures: row.failures, next_attempt_at: row.next_attempt_at, finished_at: now };
    } else {
      const next = afterFailure(row.failures, verdict, now);
      const parked = verdict === 'final' && row.op === 'reserve' ? 'refused' : 'failed';
      result = next.status === 'failed'
        ? { ...base, status: parked, failures: next.failures, next_attempt_at: row.next_attempt_at, finished_at: now }
        : { ...base, status: 'pending', failures: next.failures, next_attempt_at: next.nextAttemptAt, finished_at: null };
    }
    const attempts = sent.map((a, i): oq.AttemptRecord => ({
      tenant_id: row.tenant_id,
      transaction_id: row.transaction_id,
      attempt: row.attempts + i + 1,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      http_status: a.httpStatus,
      outcome: a.verdict,
      response_body: a.responseBody,
      error: a.error,
      worker: workerId,
    }));
    return { row, result, attempts, refused: verdict === 'final' };
  }

  function scheduleFlush(): void {
    if (flushing) return;
    flushing = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      while (buffer.length) {
        const done = buffer;
        buffer = [];
        await record(done).catch((error: unknown) => {
          // Leave the calls leased: they are sent again once the lease runs out (at-least-once).
          log('recording wallet results failed', { err: String(error), calls: done.length });
        });
      }
    })().finally(() => {
      flushing = undefined;
      if (buffer.length) scheduleFlush();
    });
  }

  async function record(done: Done[]): Promise<void> {
    const moved = await oq.complete(db, done.map((d) => d.result), done.flatMap((d) => d.attempts));
    const movedKeys = new Set(moved.map((m) => `${m.tenant_id}/${m.transaction_id}`));
    const touched = new Set<string>();
    for (const d of done) {
      const ok = movedKeys.has(`${d.row.tenant_id}/${d.row.transaction_id}`);
      metrics?.calls.inc({ tenant: d.row.tenant_id, operation: d.row.op, outcome: ok ? d.result.status : 'lease_lost' });
      if (ok && d.refused && d.row.op === 'reserve') {
        await oq.skipConditionalCalls(db, d.row.tenant_id, d.row.bet_id, d.row.seq, clock());
      }
      touched.add(d.row.tenant_id);
    }
    // The next call of each finished bet may now be claimable.
    if (running) for (const tenantId of touched) void pump(tenantId).catch(onPumpError);
  }

  function onPumpError(error: unknown): void {
    log('wallet claim failed', { err: String(error) });
  }

  async function tick(): Promise<void> {
    if (Date.now() - configsLoaded >= pollMs) await refreshConfigs();
    await rescueOrphanedReserves({ db, box, clock, leaseMs });
    await Promise.all([...tenants.keys()].map((id) => pump(id)));
  }

  async function listen(url: string): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {
      listener = undefined;
      if (running) setTimeout(() => void listen(url).catch(() => undefined), pollMs);
    });
    client.on('notification', (message) => {
      if (!running || !message.payload) return;
      if (!tenants.has(message.payload)) void refreshConfigs().then(() => pump(message.payload!)).catch(onPumpError);
      else void pump(message.payload).catch(onPumpError);
    });
    await client.connect();
    await client.query('LISTEN wallet_calls');
    listener = client;
  }

  function renew(): void {
    const keys = [...inFlight.values()];
    if (keys.length) void oq.renewLeases(db, keys, new Date(clock().getTime() + leaseMs)).catch(onPumpError);
  }

  /** Waits until nothing is being claimed, sent or recorded. */
  async function idle(): Promise<void> {
    while (deliveries.size || flushing || [...tenants.values()].some((t) => t.claiming)) {
      await Promise.all([...deliveries, flushing, ...[...tenants.values()].map((t) => t.claiming?.catch(() => 0))]);
    }
  }

  return {
    workerId,
    async start(): Promise<void> {
      running = true;
      await refreshConfigs();
      if (options.listenUrl) await listen(options.listenUrl).catch((error: unknown) => log('LISTEN failed; polling only', { err: String(error) }));
      timers = [
        setInterval(() => void tick().catch(onPumpError), pollMs),
        setInterval(renew, Math.max(200, Math.floor(leaseMs / 3))),
      ];
      void tick().catch(onPumpError);
    },
    /** Stops claiming, lets the calls in flight finish (each is bounded) and records them. */
    async stop(): Promise<void> {
      running = false;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await listener?.end().catch(() => undefined);
      listener = undefined;
      await idle();
    },
    /** Delivers everything due now, round after round, until nothing is claimable (tests, tools). */
    async drain(): Promise<void> {
      await refreshConfigs();
      for (;;) {
        await rescueOrphanedReserves({ db, box, clock, leaseMs });
        const claimed = (await Promise.all([...tenants.keys()].map((id) => pump(id)))).reduce((a, b) => a + b, 0);
        await idle();
        if (!claimed) return;
      }
    },
    inFlight: () => inFlight.size,
  };
}

export type WalletWorker = ReturnType<typeof createWalletWorker>;
