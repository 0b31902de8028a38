// The wallet worker's LISTEN for calls queued by any process (NOTIFY wallet_calls, the tenant id as
// payload). A lost or failed connection is tried again every `retryMs` until it holds; meanwhile
// the worker's polling alone delivers, at most one poll late.
import pg from 'pg';
import { clientOptions, connectClient, DEFAULT_CONNECT_TIMEOUT_MS } from '../../../db/pool.ts';
import { failureChanges, type EventLog } from '../../../log.ts';

export interface CallListenerOptions {
  url: string;
  retryMs: number;
  /** Bound on opening the connection: one to a silent host is given up and tried again. */
  connectTimeoutMs?: number;
  /** Idle time before the connection is probed: a silent host's connection is given up and opened again. */
  keepAliveMs?: number;
  /** False once the worker stops: no more retries, no more notifications passed on. */
  running: () => boolean;
  onTenant: (tenantId: string) => void;
  log: EventLog;
}

export function createCallListener(options: CallListenerOptions) {
  let current: pg.Client | undefined;
  // While the database is away every attempt fails alike: the first failure and the recovery are logged.
  const attempts = failureChanges(options.log, { failed: 'wallet worker: LISTEN failed; retrying', recovered: 'wallet worker: LISTEN works again' });

  async function listen(): Promise<void> {
    let retrying = false; // once per connection, whether its connect or a later error failed it
    const again = () => {
      if (retrying || !options.running()) return;
      retrying = true;
      setTimeout(() => void listen().catch(() => undefined), options.retryMs).unref();
    };
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const client = new pg.Client(clientOptions(options.url, 'wagerline wallet worker', connectTimeoutMs, options.keepAliveMs));
    client.on('error', (error) => {
      if (current === client) current = undefined;
      options.log('wallet worker: the listening connection failed; reconnecting', { err: String(error) });
      void client.end().catch(() => undefined);
      again();
    });
    client.on('notification', (message) => {
      if (options.running() && message.payload) options.onTenant(message.payload);
    });
    try {
      await connectClient(client, connectTimeoutMs);
      await client.query('LISTEN wallet_calls');
    } catch (error) {
      void client.end().catch(() => undefined);
      attempts.failed(error);
      again();
      throw error;
    }
    current = client;
    attempts.succeeded();
  }

  return {
    /** Starts listening; rejects when the first attempt fails (retries go on). */
    start: listen,
    async stop(): Promise<void> {
      await current?.end().catch(() => undefined);
      current = undefined;
    },
  };
}
