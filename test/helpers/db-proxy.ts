// A TCP proxy on 127.0.0.1 in front of the test's PostgreSQL, which a test can silence: the
// database host going quiet (its packets dropped, not refused). Silenced, it cuts the connections
// it carries, so the pool has to open new ones, and accepts every new connection without ever
// answering it; restored, new connections are carried again (the silent ones stay silent).
import net from 'node:net';

export interface DbProxy {
  /** The database's URL with the proxy's port. */
  url: string;
  silence(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function dbProxy(databaseUrl: string): Promise<DbProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  let silent = false;
  const server = net.createServer((client) => {
    track(client);
    if (silent) return; // accepted, and nothing it sends is ever read or answered
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    silence() {
      silent = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      silent = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A server on 127.0.0.1 that accepts connections and never answers (a silent database host from the start). */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
