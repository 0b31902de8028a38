// /metrics while the database does not answer: the wallet's outbox gauges are read from the
// database at scrape time, and their failure must not take the scrape down with them — the process
// and HTTP metrics are what an operator reads during a database outage.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import Fastify from 'fastify';
import { createPool } from '../../../db/pool.ts';
import { createRegistry, registerMetrics } from '../../../http/metrics.ts';
import { createWalletMetrics } from './metrics.ts';

// A port that accepts connections and never answers (a database stalled or cut off by the network).
const sockets: net.Socket[] = [];
const silent = net.createServer((socket) => sockets.push(socket));
after(() => {
  for (const s of sockets) s.destroy();
  silent.close();
});

async function scrape(url: string) {
  const registry = createRegistry();
  const pool = createPool(url, 1);
  pool.on('error', () => undefined);
  createWalletMetrics(registry, pool);
  const app = Fastify({ logger: false });
  registerMetrics(app, registry);
  try {
    const started = Date.now();
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    return { res, ms: Date.now() - started };
  } finally {
    await app.close();
    void pool.end().catch(() => undefined);
  }
}

test('a refused database: /metrics answers 200 with the process metrics, the outbox gauges NaN', async () => {
  const { res } = await scrape('postgres://postgres@127.0.0.1:1/none');
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  assert.match(res.body, /process_cpu_user_seconds_total/);
  for (const name of ['wallet_outbox_depth', 'wallet_outbox_failed', 'wallet_outbox_oldest_pending_seconds']) {
    assert.match(res.body, new RegExp(`^${name} Nan$`, 'm'), `${name} is not a number, never a made-up 0`);
  }
});

test('a database that never answers: /metrics still answers, within seconds', { timeout: 30_000 }, async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as net.AddressInfo;
  const { res, ms } = await scrape(`postgres://postgres@127.0.0.1:${port}/none`);
  assert.equal(res.statusCode, 200);
  assert.ok(ms < 5000, `the scrape took ${ms} ms`);
  assert.match(res.body, /^wallet_outbox_depth Nan$/m);
});
