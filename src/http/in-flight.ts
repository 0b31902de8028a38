// The requests a server is answering, for what serve's shutdown deadline says it cut
// (src/shutdown.ts): each as "METHOD /path", the query string left out (it may hold credentials).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUpgrade } from './graphql-ws.ts';

export interface InFlight {
  /** The requests not answered yet, oldest first. */
  requests(): string[];
}

/** Registers the hooks that keep the list; call before the app is ready. */
export function trackInFlight(app: FastifyInstance): InFlight {
  const open = new Map<string, string>();
  const done = async (request: FastifyRequest) => {
    open.delete(request.id);
  };
  app.addHook('onRequest', async (request) => {
    open.set(request.id, `${request.method} ${request.url.split('?')[0]}`);
    // A WebSocket taken over by its server never reaches onResponse: it is done when its socket closes.
    if (isUpgrade(request)) request.raw.socket.once('close', () => open.delete(request.id));
  });
  app.addHook('onResponse', done);
  app.addHook('onRequestAbort', done);
  return { requests: () => [...open.values()] };
}
