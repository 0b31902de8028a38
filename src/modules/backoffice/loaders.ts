// Per-request loaders of the back-office: the fields of every bet of a page that need more reads
// (legs, wallet calls, history) are collected while GraphQL walks the page, then read for the whole
// page at once — a fixed number of statements per page instead of some per bet (no N+1).
import type { BackofficeBet, BackofficeHistoryEntry, BackofficeLeg, WalletCallRecord } from '../betting/backoffice-reads.ts';
import type { BackofficeService } from './backoffice.service.ts';

type Load<K, V> = (keys: K[]) => Promise<V[]>;

/**
 * A function that asks for one key and gets its value, while the keys asked for until the next
 * turn of the event loop are loaded by one call of `load` (values in the order of the keys). The
 * same key asked twice is loaded once.
 */
export function batcher<K, V>(load: Load<K, V>): (key: K) => Promise<V> {
  let queue: Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>> | null = null;
  const flush = async (batch: NonNullable<typeof queue>) => {
    const keys = [...batch.keys()];
    try {
      const values = await load(keys);
      keys.forEach((key, i) => batch.get(key)!.forEach((w) => w.resolve(values[i]!)));
    } catch (error) {
      for (const waiters of batch.values()) waiters.forEach((w) => w.reject(error));
    }
  };
  return (key) => new Promise<V>((resolve, reject) => {
    if (!queue) {
      const batch = new Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>>();
      queue = batch;
      // After the current walk: GraphQL calls every item's resolvers before the loop turns.
      setImmediate(() => {
        queue = null;
        void flush(batch);
      });
    }
    const waiters = queue.get(key);
    if (waiters) waiters.push({ resolve, reject });
    else queue.set(key, [{ resolve, reject }]);
  });
}

export interface BackofficeLoaders {
  legs(bet: BackofficeBet): Promise<BackofficeLeg[]>;
  walletCalls(bet: BackofficeBet): Promise<WalletCallRecord[]>;
  history(bet: BackofficeBet): Promise<BackofficeHistoryEntry[]>;
}

/** The loaders of one request (a new set per request: nothing is cached across requests). */
export function createLoaders(backoffice: Pick<BackofficeService, 'legs' | 'walletCalls' | 'history'>): BackofficeLoaders {
  return {
    legs: batcher((bets: BackofficeBet[]) => backoffice.legs(bets)),
    walletCalls: batcher((bets: BackofficeBet[]) => backoffice.walletCalls(bets)),
    history: batcher((bets: BackofficeBet[]) => backoffice.history(bets)),
  };
}
