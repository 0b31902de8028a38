// A small graphql-transport-ws client on `ws` for subscription tests: connect with a
// connection_init payload (and optional upgrade headers), subscribe, collect what comes.
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { until } from '../wallet-fixtures.ts';

export interface Received {
  id: string;
  type: 'next' | 'error' | 'complete';
  payload: any;
}

export interface WsClient {
  /** Messages of subscriptions, in order of arrival. */
  received: Received[];
  subscribe(id: string, query: string, variables?: Record<string, unknown>): void;
  complete(id: string): void;
  close(): Promise<void>;
}

/** Resolves when the server acknowledged connection_init; rejects with the close code and reason otherwise. */
export function connect(url: string, payload: Record<string, unknown> | null, headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws', { headers });
  const received: Received[] = [];
  return new Promise((resolve, reject) => {
    // The socket of a refused upgrade is left open here: the server must close it.
    socket.once('unexpected-response', (_req, res) => {
      reject(Object.assign(new Error(`upgrade refused: HTTP ${res.statusCode}`), { status: res.statusCode }));
    });
    socket.on('error', reject);
    socket.once('close', (code, reason) => reject(Object.assign(new Error(`closed ${code} ${reason.toString()}`), { code, reason: reason.toString() })));
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', ...(payload && { payload }) })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; id?: string; payload?: unknown };
      if (message.type === 'connection_ack') {
        resolve({
          received,
          subscribe: (id, query, variables) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, ...(variables && { variables }) } })),
          complete: (id) => socket.send(JSON.stringify({ id, type: 'complete' })),
          close: () => new Promise((done) => {
            if (socket.readyState === WebSocket.CLOSED) return done();
            socket.once('close', () => done());
            socket.close();
          }),
        });
      } else if (message.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
      } else if (message.type === 'next' || message.type === 'error' || message.type === 'complete') {
        received.push({ id: message.id!, type: message.type, payload: message.payload });
      }
    });
  });
}

/** The close code and reason of a connection the server refuses (rejects if it was accepted). */
export async function refusal(url: string, payload: Record<string, unknown> | null, headers: Record<string, string> = {}): Promise<{ code?: number; reason?: string; status?: number }> {
  try {
    const client = await connect(url, payload, headers);
    await client.close();
  } catch (error) {
    const e = error as { code?: number; reason?: string; status?: number };
    return { ...(e.code !== undefined && { code: e.code }), ...(e.reason !== undefined && { reason: e.reason }), ...(e.status !== undefined && { status: e.status }) };
  }
  throw new Error('the connection was accepted');
}

/** A raw graphql-transport-ws socket, acknowledged after `payload`, and the close code and reason it ends with. */
export async function rawSocket(url: string, payload: Record<string, unknown>, query: string) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload }));
  await new Promise((resolve) => socket.once('message', resolve));
  return { socket, closed, subscribe: (id: string) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } })) };
}

/**
 * What both endpoints promise of a connection's subscriptions (http/live-connection.ts): at most 10
 * live, the 11th an error with TOO_MANY_SUBSCRIPTIONS; completing one frees its place; closing the
 * connection ends them all. `live()` counts the process's subscribers.
 */
export async function checkSubscriptionLimit(client: WsClient, query: string, live: () => number): Promise<void> {
  const before = live();
  for (let i = 0; i < 11; i++) client.subscribe(`s${i}`, query);
  await until('the 11th refused', () => client.received.some((m) => m.type === 'error'));
  const errors = client.received.filter((m) => m.type === 'error');
  assert.deepEqual(errors.map((m) => m.id), ['s10']);
  assert.equal(errors[0]!.payload[0].extensions.code, 'TOO_MANY_SUBSCRIPTIONS', JSON.stringify(errors));
  await until('ten live', () => live() === before + 10);
  client.complete('s0');
  await until('one ended', () => live() === before + 9);
  client.subscribe('again', query);
  await until('the place taken again', () => live() === before + 10);
  await client.close();
  await until('all ended with the connection', () => live() === before);
}

/** An id subscribed twice on `raw` closes it with 4409, and no subscription outlives it. */
export async function checkDuplicateId(raw: Awaited<ReturnType<typeof rawSocket>>, live: () => number): Promise<void> {
  const before = live();
  raw.subscribe('same');
  await until('the first live', () => live() === before + 1);
  raw.subscribe('same');
  const closed = await Promise.race([raw.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))]);
  if (closed === 'still open') raw.socket.close();
  assert.deepEqual(closed, { code: 4409, reason: 'Subscriber for same already exists' });
  await until('nothing left subscribed', () => live() === before, 3000);
}
