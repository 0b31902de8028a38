// Prometheus metrics of the wallet integration: calls by tenant, operation and outcome; the outbox
// depth (calls pending or in flight), the calls parked as failed, and the age of the oldest
// undelivered call — read from the database at scrape time, so every process reports the same.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Queryable } from '../../../db/pool.ts';
import { outboxStats } from '../controls/controls.queries.ts';

type Stats = Awaited<ReturnType<typeof outboxStats>>;
const STATS_WAIT_MS = 2000;
const UNKNOWN: Stats = { depth: NaN, failed: NaN, oldest: null };

/** The outbox statistics, or UNKNOWN when the query fails or takes longer than STATS_WAIT_MS. */
function withinWait(query: Promise<Stats>): Promise<Stats> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Stats>((resolve) => {
    timer = setTimeout(() => resolve(UNKNOWN), STATS_WAIT_MS);
  });
  return Promise.race([query.catch(() => UNKNOWN), late]).finally(() => clearTimeout(timer));
}

export function createWalletMetrics(registry: Registry, db: Queryable, clock: () => Date = () => new Date()) {
  const existing = registry.getSingleMetric('wallet_calls_total') as Counter<'tenant' | 'operation' | 'outcome'> | undefined;
  if (existing) return { calls: existing, takes: registry.getSingleMetric('wallet_reserve_takes_total') as Counter<'how'> };
  const takes = new Counter({
    name: 'wallet_reserve_takes_total',
    help: 'Successful reserves of placements recorded, and their bets taken: together = in a transaction with others answered meanwhile, alone = in one of their own (a group of one, or a group that failed and was retried bet by bet)',
    labelNames: ['how'] as const,
    registers: [registry],
  });
  const calls = new Counter({
    name: 'wallet_calls_total',
    help: 'Wallet call rounds by tenant, operation and outcome (delivered, pending = retry scheduled, failed = parked, reserved/rejected/unknown for reserve, lease_lost)',
    labelNames: ['tenant', 'operation', 'outcome'] as const,
    registers: [registry],
  });
  let stats: Promise<Stats> | undefined;
  // One query per scrape for all three gauges: a scrape starts every collect() in the same tick,
  // so they share the query in flight; the next scrape reads afresh. A database that fails or
  // does not answer within STATS_WAIT_MS makes them NaN (never a made-up 0): a throwing collect()
  // would fail the whole scrape, process metrics included, in the very outage they should show.
  const read = () => {
    stats ??= withinWait(outboxStats(db)).finally(() => {
      stats = undefined;
    });
    return stats;
  };
  new Gauge({
    name: 'wallet_outbox_depth',
    help: 'Wallet calls pending or in flight',
    registers: [registry],
    async collect() {
      this.set((await read()).depth);
    },
  });
  new Gauge({
    name: 'wallet_outbox_failed',
    help: 'Wallet calls parked as failed (wagerline wallet failed)',
    registers: [registry],
    async collect() {
      this.set((await read()).failed);
    },
  });
  new Gauge({
    name: 'wallet_outbox_oldest_pending_seconds',
    help: 'Age of the oldest wallet call not yet delivered (0 when none)',
    registers: [registry],
    async collect() {
      const stats = await read();
      const { oldest } = stats;
      this.set(stats === UNKNOWN ? NaN : oldest ? Math.max(0, (clock().getTime() - oldest.getTime()) / 1000) : 0);
    },
  });
  return { calls, takes };
}

export type WalletMetrics = ReturnType<typeof createWalletMetrics>;
