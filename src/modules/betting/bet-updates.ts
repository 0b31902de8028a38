// Live bet updates across processes (docs/backoffice-subscriptions.md, Subscriptions). Every change of a bet's
// state announces itself on the PostgreSQL channel bet_updates, in the statement that makes it
// (betting.queries.ts BET_UPDATE_NOTIFY: placement, settlement batches, cancel, cash out,
// adjustment); NOTIFY is delivered at commit, so only committed changes go out, whichever process
// made them. Each process holds ONE listening connection, opened by its first subscriber, LISTENing
// only while it has subscribers, and hands every announcement to its local subscribers whose filter
// takes it.
//
// Delivery is at most once and best effort: an announcement that arrives while the listening
// connection is down (it reconnects on its own) is lost, and a subscriber that falls more than
// `maxQueue` updates behind is ended with an error. A client that must not miss a change reads the
// bets again (getBets, myBets) after it (re)subscribes.
import pg from 'pg';
import { clientOptions, connectClient, DEFAULT_CONNECT_TIMEOUT_MS } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { failureChanges, type EventLog } from '../../log.ts';
import { BET_UPDATES_CHANNEL } from './betting.queries.ts';

/** What a change announces: the bet and the state it moved to (lower case, as stored). */
export interface BetUpdate {
  tenant_id: string;
  bet_id: string;
  user_id: string;
  status: string;
}

export interface BetUpdatesDeps {
  /** The database to LISTEN on; without it nothing is announced to this process. */
  listenUrl?: string;
  /** Delay before the listening connection is opened again after it failed. */
  retryMs?: number;
  /** Bound on opening the listening connection (WAGERLINE_DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** Idle time before the listening connection is probed (WAGERLINE_DB_KEEPALIVE_MS). */
  keepAliveMs?: number;
  /** Updates a subscriber may have waiting before it is ended as too slow. */
  maxQueue?: number;
  log?: EventLog;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The update a payload announces, or undefined for anything else. */
export function parseBetUpdate(payload: string | undefined): BetUpdate | undefined {
  if (!payload) return undefined;
  try {
    const value = JSON.parse(payload) as Partial<BetUpdate>;
    if (![value.tenant_id, value.bet_id, value.user_id].every((id) => typeof id === 'string' && UUID.test(id))) return undefined;
    if (typeof value.status !== 'string') return undefined;
    return { tenant_id: value.tenant_id!, bet_id: value.bet_id!, user_id: value.user_id!, status: value.status };
  } catch {
    return undefined;
  }
}

type Listener = (update: BetUpdate) => void;

export class SubscriberTooSlow extends AppError {
  constructor(limit: number) {
    super('subscriber_too_slow', `more than ${limit} bet updates waited for this subscriber; subscribe again and read the bets with a query`);
  }
}

export function createBetUpdates(deps: BetUpdatesDeps = {}) {
  const retryMs = deps.retryMs ?? 1000;
  const maxQueue = deps.maxQueue ?? 10_000;
  const log: EventLog = (message, fields, level) => deps.log?.(message, { module: 'betting', ...fields }, level);
  // While the database is away every retry fails alike: the first failure and the recovery are logged.
  const retries = failureChanges(log, { failed: 'bet updates: LISTEN failed; retrying', recovered: 'bet updates: LISTEN works again' });
  const listeners = new Set<Listener>();
  let client: pg.Client | undefined;
  /** Whether LISTEN is in place on `client`. */
  let listening = false;
  let syncing: Promise<void> | undefined;
  let requested = false;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  function publish(update: BetUpdate): void {
    for (const listener of listeners) {
      try {
        listener(update);
      } catch (error) {
        log('a bet update subscriber failed', { err: String(error) });
      }
    }
  }

  function scheduleRetry(): void {
    if (closed || retry || !deps.listenUrl) return;
    retry = setTimeout(() => {
      retry = undefined;
      void sync().catch(() => undefined);
    }, retryMs);
    retry.unref();
  }

  async function connect(url: string): Promise<pg.Client> {
    const connectTimeoutMs = deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const next = new pg.Client(clientOptions(url, 'wagerline bet updates', connectTimeoutMs, deps.keepAliveMs));
    next.on('error', (error) => {
      log('bet updates: the listening connection failed; reconnecting', { err: String(error) });
      if (client === next) {
        client = undefined;
        listening = false;
      }
      void next.end().catch(() => undefined);
      scheduleRetry();
    });
    next.on('notification', (message) => {
      if (message.channel !== BET_UPDATES_CHANNEL) return;
      const update = parseBetUpdate(message.payload);
      if (update) publish(update);
    });
    await connectClient(next, connectTimeoutMs);
    return next;
  }

  /**
   * LISTEN while this process has subscribers, UNLISTEN once it has none (the connection stays
   * open): a listening backend is woken by every bet change and wakes this process in turn, work
   * with nobody to hand the change to.
   */
  async function apply(): Promise<void> {
    const want = listeners.size > 0 && !closed && deps.listenUrl !== undefined;
    if (want === listening) return;
    if (want) {
      client ??= await connect(deps.listenUrl!);
      await client.query(`LISTEN ${BET_UPDATES_CHANNEL}`);
      listening = true;
    } else if (client) {
      await client.query(`UNLISTEN ${BET_UPDATES_CHANNEL}`);
      listening = false;
    }
  }

  /** Brings LISTEN in line with the subscribers; resolves once a pass begun after this call is done. */
  function sync(): Promise<void> {
    requested = true;
    syncing ??= (async () => {
      while (requested) {
        requested = false;
        await apply();
      }
      retries.succeeded();
    })().catch((error: unknown) => {
      retries.failed(error);
      scheduleRetry();
      throw error;
    }).finally(() => {
      syncing = undefined;
    });
    return syncing;
  }

  /** Calls `listener` with every update `filter` takes until the returned function is called. */
  function subscribe(filter: (update: BetUpdate) => boolean, listener: Listener): () => void {
    const wrapped: Listener = (update) => {
      if (filter(update)) listener(update);
    };
    listeners.add(wrapped);
    void sync().catch(() => undefined);
    return () => {
      if (listeners.delete(wrapped)) void sync().catch(() => undefined);
    };
  }

  /**
   * The updates `filter` takes, as an async iterator (what a GraphQL subscription returns). It is
   * subscribed (and LISTEN in place) once the promise resolves; return() unsubscribes.
   */
  async function stream(filter: (update: BetUpdate) => boolean): Promise<AsyncIterableIterator<BetUpdate>> {
    const queue: BetUpdate[] = [];
    let waiting: ((result: IteratorResult<BetUpdate>) => void) | undefined;
    let error: Error | undefined;
    let done = false;
    const unsubscribe = subscribe(filter, (update) => {
      if (done) return;
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: update, done: false });
      } else if (queue.length >= maxQueue) {
        error = new SubscriberTooSlow(maxQueue);
        queue.length = 0;
        finish();
      } else {
        queue.push(update);
      }
    });
    const finish = () => {
      done = true;
      unsubscribe();
      const resolve = waiting;
      waiting = undefined;
      resolve?.({ value: undefined, done: true });
    };
    await sync().catch(() => undefined);
    const iterator: AsyncIterableIterator<BetUpdate> = {
      next() {
        if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
        if (error) {
          const e = error;
          error = undefined;
          return Promise.reject(e);
        }
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          waiting = resolve;
        });
      },
      return() {
        queue.length = 0;
        finish();
        return Promise.resolve({ value: undefined, done: true });
      },
      throw(reason?: unknown) {
        queue.length = 0;
        finish();
        return Promise.reject(reason);
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  return {
    subscribe,
    stream,
    /** Subscribers in this process (a gauge for /metrics, and tests wait on it). */
    subscribers: () => listeners.size,
    /** Whether LISTEN is in place now (only while there are subscribers). */
    listening: () => listening,
    /** Publishes to this process's subscribers only (tests; serve announces through the database). */
    publishLocal: publish,
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      listeners.clear();
      await syncing?.catch(() => undefined);
      await client?.end().catch(() => undefined);
      client = undefined;
      listening = false;
    },
  };
}

export type BetUpdates = ReturnType<typeof createBetUpdates>;

/**
 * `source`, ended (and closed) at the first update found after `active` turned false: a client
 * revoked, a tenant disabled since the subscription started gets nothing more, and the
 * subscription completes. A check that fails (the database away) lets the update through; the next
 * update checks again.
 */
export function whileActive<T>(source: AsyncIterableIterator<T>, active: () => Promise<boolean>): AsyncIterableIterator<T> {
  const done = (): IteratorResult<T> => ({ done: true, value: undefined });
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      const item = await source.next();
      if (item.done || await active().catch(() => true)) return item;
      await source.return?.();
      return done();
    },
    return: async () => (await source.return?.()) ?? done(),
    throw: async (error?: unknown) => (await source.throw?.(error)) ?? done(),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
