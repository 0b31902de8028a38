// One WebSocket connection of a frontend user to /graphql (myBetUpdated, docs/frontend.md) or of a
// back-office client to /backoffice/query (betUpdated, docs/backoffice-subscriptions.md): what it may hold, and
// how long. Each subscription is a listener on every bet change of the process,
// so a connection holds at most MAX_SUBSCRIPTIONS_PER_CONNECTION of them; an id subscribed again
// while live closes the connection (graphql-transport-ws: 4409) — mercurius would otherwise
// replace the first subscription by the second and never end the first, not even when the socket
// closes. A jwt user's connection is closed (4401) when the token expires, as a request with that
// token would be refused from then on: a leaked or lapsed token does not keep a live feed.
import { AppError } from '../errors.ts';
import { CLOSE_UNAUTHENTICATED, type SocketLike } from './graphql-ws.ts';

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 10;
/** graphql-transport-ws' close code of a subscribe whose id is already live. */
export const CLOSE_SUBSCRIBER_EXISTS = 4409;
/** setTimeout's longest delay (about 24.8 days): a token valid longer is cut off then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class LiveConnection {
  private readonly ids = new Set<string>();

  /** expiresInMs: how long the user's token stays valid (null: custom mode, no expiry known). */
  constructor(private readonly socket: SocketLike | undefined, expiresInMs: number | null) {
    if (expiresInMs === null || !socket) return;
    const timer = setTimeout(() => socket.close(CLOSE_UNAUTHENTICATED, 'UNAUTHENTICATED: expired'), Math.min(Math.max(expiresInMs, 0), MAX_TIMER_MS));
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  /** Takes a place for subscription `id`; the function returned gives it back (once is enough). */
  claim(id: string): () => void {
    if (this.ids.has(id)) {
      // The close reason is at most 123 bytes: the id is clipped.
      this.socket?.close(CLOSE_SUBSCRIBER_EXISTS, `Subscriber for ${id.slice(0, 80)} already exists`);
      throw new AppError('bad_request', `subscription id ${id.slice(0, 80)} is already live on this connection`);
    }
    if (this.ids.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new AppError('too_many_subscriptions', `this connection already holds ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions; complete one first (one subscription is all a frontend or back-office needs)`);
    }
    this.ids.add(id);
    return () => this.ids.delete(id);
  }
}

/**
 * `source`, calling `end` once it ends: done, failed, returned or thrown into. A failure reaches
 * the client as `failed(error)` gives it: mercurius sends an error of a running subscription as
 * it is, without the endpoint's formatter, so the endpoint gives it its code here.
 */
export function endingWith<T>(source: AsyncIterableIterator<T>, end: () => void, failed: (error: unknown) => unknown = (e) => e): AsyncIterableIterator<T> {
  const done = (): IteratorResult<T> => ({ done: true, value: undefined });
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      try {
        const item = await source.next();
        if (item.done) end();
        return item;
      } catch (error) {
        end();
        throw failed(error);
      }
    },
    async return() {
      end();
      return (await source.return?.()) ?? done();
    },
    async throw(error?: unknown) {
      end();
      return (await source.throw?.(error)) ?? done();
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
