// How many live WebSocket connections each frontend user (docs/frontend.md, "Live updates") or
// back-office client (docs/backoffice-subscriptions.md, "Subscriptions") holds in this process. Every subscription listens on every bet change of the process, and a
// connection holds up to 10 of them: without a bound, one valid token could open thousands of
// connections and make each bet change cost thousands of reads. A real frontend needs a few: a
// connection per browser tab or app, on a few devices.
import { AppError } from '../errors.ts';
import type { SocketLike } from './graphql-ws.ts';

/** ws' readyState of a socket closing or closed. */
const CLOSING = 2;

export class ConnectionsPerUser {
  private readonly live = new Map<string, number>();

  /** `holder`: who holds the connections, as the refusal names them ("user", "client"). */
  constructor(private readonly max: number, private readonly holder = 'user') {}

  /**
   * Takes a place for a connection of (tenantId, userId) until its socket closes, however it
   * closes; throws too_many_connections when the user holds `max` already. A socket that closed
   * while its connection_init was being checked takes none: its close has been and gone. Without a
   * socket there is no live connection to count (mercurius refuses it its own way).
   */
  take(tenantId: string, userId: string, socket: SocketLike | undefined): void {
    if (!socket || (socket.readyState ?? 0) >= CLOSING) return;
    // tenantId is a UUID: the first '/' ends it, whatever the user id holds.
    const key = `${tenantId}/${userId}`;
    const held = this.live.get(key) ?? 0;
    if (held >= this.max) {
      throw new AppError('too_many_connections',
        `this ${this.holder} already holds ${this.max} live connections in this process; close one first (a connection carries up to 10 subscriptions)`,
        { extensions: { reason: `${this.max} live connections for this ${this.holder} already` } });
    }
    this.live.set(key, held + 1);
    socket.once('close', () => {
      const left = (this.live.get(key) ?? 1) - 1;
      if (left > 0) this.live.set(key, left);
      else this.live.delete(key);
    });
  }
}
