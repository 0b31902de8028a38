// A small graphql-transport-ws client on `ws` for subscription tests: connect with a
// connection_init payload (and optional upgrade headers), subscribe, collect what comes.
import WebSocket from 'ws';

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
