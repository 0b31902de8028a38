// The delivery worker: claims due calls of each tenant's wallet (never more in flight than the
// wallet's concurrency, across all processes), sends them, and records the outcome of each round
// in batched statements. A bet's calls go one at a time in sequence order because the claim only
// takes a call when every earlier call of its bet is finished (wallet_claim, claim.ts).
// Wake-ups: LISTEN wallet_calls (enqueue notifies at commit), after recorded batches (see record),
// and a poll every WAGERLINE_WALLET_POLL_MS. It also sends placements' next calls (direct-send.ts).
import { randomUUID } from 'node:crypto';
import { failureChanges, type EventLog } from '../../../log.ts';
import { createCallListener } from './call-listener.ts';
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { withTransaction, type Pool } from '../../../db/pool.ts';
import type { Attempt, WalletEndpoint, WalletHttp } from './http-client.ts';
import { createWalletTenants, type TenantState } from './tenant-endpoints.ts';
import type { WalletMetrics } from './metrics.ts';
import * as oq from '../outbox/outbox.queries.ts';
import { rescueOrphanedReserves } from './reserve-release.ts';
import { roundOutcome } from './outcome.ts';
import { leasingSender } from './direct-send.ts';
import { batchedWrites } from './batched-writes.ts';
import { claimCurrent } from './claim.ts';
import { requestOf, writeRounds, type Done } from './round-io.ts';
import { renewLeases, type Sending } from './lease-renewal.ts';

export interface WalletWorkerOptions {
  db: Pool;
  box: SecretBox;
  http: WalletHttp;
  clock?: () => Date;
  leaseMs: number;
  pollMs: number;
  /** LISTEN for wake-ups on this database (omit: poll only). */
  listenUrl?: string;
  /** Bound on opening the LISTEN connection (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Idle time before the LISTEN connection is probed (WAGERLINE_DB_KEEPALIVE_MS). */
  keepAliveMs?: number;
  /** Most calls claimed by one statement. */
  batch?: number;
  metrics?: WalletMetrics;
  log?: EventLog;
}

export function createWalletWorker(options: WalletWorkerOptions) {
  const { db, box, http, leaseMs, pollMs, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  const batch = options.batch ?? 100;
  const log = options.log ?? (() => undefined);
  const renewEveryMs = Math.max(200, Math.floor(leaseMs / 3));
  const workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const tenants = createWalletTenants({ db, box, log });
  const inFlight = new Map<string, Sending>();
  const deliveries = new Set<Promise<void>>();
  let claims = 0;
  const writes = batchedWrites<Done>({ write: (done) => record(done), pauseMs: renewEveryMs, tries: 5, log });
  let running = false;
  /** Set by stop(): nothing more is claimed (drain() works without start(), so not `!running`). */
  let stopped = false;
  let ticking: Promise<void> | undefined;
  let timers: NodeJS.Timeout[] = [];
  const listener = options.listenUrl ? createCallListener({
    url: options.listenUrl, retryMs: pollMs, ...(options.connectTimeoutMs && { connectTimeoutMs: options.connectTimeoutMs }),
    ...(options.keepAliveMs && { keepAliveMs: options.keepAliveMs }), running: () => running, log,
    onTenant: (tenantId) => {
      if (!tenants.known(tenantId)) void refreshConfigs().then(() => pump(tenantId)).catch(onPumpError);
      else void pump(tenantId).catch(onPumpError);
    },
  }) : undefined;
  let configsLoaded = 0;
  const refreshConfigs = (): Promise<void> => tenants.refresh().then(() => { configsLoaded = Date.now(); });

  /** Claims what the tenant's free slots allow and starts sending; resolves with the count. */
  function pump(tenantId: string): Promise<number> {
    const state = tenants.usable(tenantId);
    if (!state || stopped) return Promise.resolve(0);
    if (state.claiming) {
      state.again = true;
      return state.claiming;
    }
    const limit = state.endpoint.concurrency;
    const free = limit - state.inflight;
    if (free <= 0) {
      state.backlog = true;
      return Promise.resolve(0);
    }
    const owner = `${workerId}/${++claims}`;
    const now = clock();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    state.claims++;
    state.backlog = false;
    const max = Math.min(free, batch);
    let filled = false;
    state.claiming = claimCurrent({ db, tenants, refresh: refreshConfigs, log }, state, { tenantId, now, max, limit, owner, leaseUntil })
      .then((rows) => {
        filled = rows.length >= max;
        // A claim answered so late that its lease could run out before the first renewal (the
        // database or this process stalled): sending now could overlap another sender that
        // claims the calls once the lease ends. They are left to their leases, unsent.
        if (rows.length && leaseUntil.getTime() - clock().getTime() <= renewEveryMs) {
          log('wallet claim answered too late: its calls are left to their leases', { tenant: tenantId, calls: rows.length });
          return 0;
        }
        for (const row of rows) start(state, row, owner, leaseUntil.getTime());
        return rows.length;
      })
      .finally(() => {
        const again = state.again && running && !filled;
        state.claiming = undefined;
        state.again = false;
        // A claim that took fewer than it asked may have missed what woke a pump meanwhile (one
        // that took as many claims again as each of its calls is recorded).
        if (again) void pump(tenantId).catch(onPumpError);
      });
    return state.claiming;
  }

  function start(state: TenantState, row: oq.CallRow, owner: string, leaseUntil: number, claimsBefore?: number): void {
    state.inflight++;
    const key = `${row.tenant_id}/${row.transaction_id}`;
    const sending: Sending = { tenant_id: row.tenant_id, transaction_id: row.transaction_id, owner, leaseUntil, stop: new AbortController() };
    inFlight.set(key, sending);
    const p = deliver(state.endpoint, row, owner, sending.stop.signal, claimsBefore)
      .catch((error: unknown) => log('wallet delivery crashed', { err: String(error), transactionId: row.transaction_id }))
      .finally(() => {
        state.inflight--;
        // Only this send's entry: an abandoned send that ends late must not drop a newer one's.
        if (inFlight.get(key) === sending) inFlight.delete(key);
        deliveries.delete(p);
        // A claim found no slot while this call waited for its write (record() claims before it ends).
        if (running && state.backlog) void pump(row.tenant_id).catch(onPumpError);
      });
    deliveries.add(p);
  }

  async function deliver(endpoint: WalletEndpoint, row: oq.CallRow, owner: string, stop: AbortSignal, claimsBefore?: number): Promise<void> {
    const request = requestOf(box, clock, row);
    if (typeof request !== 'string') return recorded(row, owner, claimsBefore, [request], stop);
    const sent = await http.send(endpoint, row.op, request, row.transaction_id, stop);
    return recorded(row, owner, claimsBefore, sent, stop);
  }

  /** Records the round (batched-writes.ts), the call in flight until it is written. */
  async function recorded(row: oq.CallRow, owner: string, claimsBefore: number | undefined, sent: Attempt[], stop: AbortSignal): Promise<void> {
    if (stop.aborted) {
      // The lease is lost (or about to be): whoever holds it now records the call. Nothing is
      // written here; if nobody took it over yet, it is sent again once the lease runs out.
      log('wallet call abandoned', { reason: String(stop.reason), transactionId: row.transaction_id });
      metrics?.calls.inc({ tenant: row.tenant_id, operation: row.op, outcome: 'lease_lost' });
      return;
    }
    await writes.add({ row, claimsBefore, ...roundOutcome(row, owner, workerId, sent, clock()) });
  }

  async function record(done: Done[]): Promise<void> {
    // A refused reserve and the skipping of its conditional refund commit together: otherwise
    // another worker could claim the refund in between and send it (spec 3 forbids a refundBet
    // without a successful reservation).
    const refusedReserve = done.some((d) => d.refused && d.row.op === 'reserve');
    const moved = refusedReserve ? await withTransaction(db, (tx) => writeRounds(tx, done, clock)) : await writeRounds(db, done, clock);
    // Claim again where a call may have become claimable that no claim took: after a claimed call,
    // always (its slot is free again); after one sent at commit, when a later call of its bet is
    // open, when calls were left for a slot, or when a claim ran while it was leased (that claim
    // saw it `sending`, so it took nothing queued behind it).
    const claimable = new Set<string>();
    for (const d of done) {
      const key = `${d.row.tenant_id}/${d.row.transaction_id}`;
      metrics?.calls.inc({ tenant: d.row.tenant_id, operation: d.row.op, outcome: moved.has(key) ? d.result.status : 'lease_lost' });
      const state = tenants.usable(d.row.tenant_id);
      if (d.claimsBefore === undefined || moved.get(key) || state?.backlog || state?.claims !== d.claimsBefore) claimable.add(d.row.tenant_id);
    }
    if (running) for (const tenantId of claimable) void pump(tenantId).catch(onPumpError);
  }

  // While the database is away every poll fails alike: its first failure and the recovery are logged.
  const claimFailures = failureChanges(log, { failed: 'wallet claim failed', recovered: 'wallet claims work again' });
  function onPumpError(error: unknown): void {
    claimFailures.failed(error);
  }

  /** One poll round; never two at once, so stop() can wait for the one in progress. */
  function tick(): Promise<void> {
    ticking ??= (async () => {
      if (Date.now() - configsLoaded >= pollMs) await refreshConfigs();
      if (stopped) return;
      await rescueOrphanedReserves({ db, box, clock, leaseMs });
      await Promise.all(tenants.ids().map((id) => pump(id)));
      claimFailures.succeeded();
    })().finally(() => {
      ticking = undefined;
    });
    return ticking;
  }

  /** Waits until nothing is being claimed, sent or recorded. */
  async function idle(): Promise<void> {
    while (deliveries.size || writes.flushing() || tenants.states().some((t) => t.claiming)) {
      await Promise.all([...deliveries, writes.flushing(), ...tenants.states().map((t) => t.claiming?.catch(() => 0))]);
    }
  }

  return {
    workerId,
    async start(): Promise<void> {
      running = true;
      stopped = false;
      await refreshConfigs();
      await listener?.start().catch((error: unknown) => log('LISTEN failed; polling only meanwhile', { err: String(error) }));
      if (stopped) return; // stop() was called meanwhile
      timers = [
        setInterval(() => void tick().catch(onPumpError), pollMs),
        setInterval(() => renewLeases({ db, clock, leaseMs, renewEveryMs, inFlight, onError: onPumpError }), renewEveryMs),
      ];
      void tick().catch(onPumpError);
    },
    /** Stops claiming, lets the calls in flight finish (each is bounded) and records them. */
    async stop(): Promise<void> {
      running = false;
      stopped = true;
      const [poll, renewal] = timers;
      clearInterval(poll);
      await listener?.stop();
      await ticking?.catch(() => undefined); // it claims nothing more, but may have claimed already
      await idle(); // leases are still renewed meanwhile, so no call in flight is taken over
      clearInterval(renewal);
      timers = [];
    },
    /** Delivers everything due now, round after round, until nothing is claimable (tests, tools). */
    async drain(): Promise<void> {
      await refreshConfigs();
      for (;;) {
        await rescueOrphanedReserves({ db, box, clock, leaseMs });
        const claimed = (await Promise.all(tenants.ids().map((id) => pump(id)))).reduce((a, b) => a + b, 0);
        await idle();
        if (!claimed) return;
      }
    },
    inFlight: () => inFlight.size,
    /** Sends placements' next calls at commit (direct-send.ts), while started. */
    sender: leasingSender({
      usable: (tenantId) => (running && !stopped ? tenants.usable(tenantId) : undefined),
      owner: () => `${workerId}/${++claims}`, start, stopped: () => stopped, clock, leaseMs, renewEveryMs, log,
    }),
  };
}

export type WalletWorker = ReturnType<typeof createWalletWorker>;
