// betUpdated over a real WebSocket on 127.0.0.1: a back-office connection holds a bounded number
// of subscriptions, and an id subscribed twice closes it (graphql-transport-ws: 4409) rather than
// leaving the first subscription running after the connection is gone — each one is a listener on
// every bet change of the process that reads the bet again for every update.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, BACKOFFICE, type BackofficeClient } from './helpers/backoffice.ts';
import { connect, type WsClient } from './helpers/graphql-ws.ts';
import { until } from './wallet-fixtures.ts';

let ctx: TestContext;
let client: BackofficeClient;
let url: string;
const sockets: WsClient[] = [];
const SUBSCRIBE = 'subscription { betUpdated { bet_id status } }';

before(async () => {
  ctx = await createTestApp();
  client = await backofficeClient(ctx);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  url = `ws://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}${BACKOFFICE}`;
});
after(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await ctx.close();
});

const subscribers = () => ctx.services.betUpdates.subscribers();
const credentials = () => ({ 'x-api-key': client.clientId, authorization: client.headers.authorization! });

/** A raw graphql-transport-ws socket, acknowledged, and the close code and reason it ends with. */
async function rawSocket() {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: credentials() }));
  await new Promise((resolve) => socket.once('message', resolve));
  return { socket, closed, subscribe: (id: string) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIBE } })) };
}

test('an id subscribed twice closes the connection with 4409, and no subscription outlives it', { timeout: 30_000 }, async () => {
  const before = subscribers();
  const raw = await rawSocket();
  raw.subscribe('same');
  await until('the first live', () => subscribers() === before + 1);
  raw.subscribe('same');
  const closed = await Promise.race([raw.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))]);
  if (closed === 'still open') raw.socket.close();
  assert.deepEqual(closed, { code: 4409, reason: 'Subscriber for same already exists' });
  await until('nothing left subscribed', () => subscribers() === before, 3000);
});

test('a connection holds at most 10 subscriptions: the 11th is an error naming the limit, the others live on', { timeout: 30_000 }, async () => {
  const before = subscribers();
  const live = await connect(url, credentials());
  sockets.push(live);
  for (let i = 0; i < 11; i++) live.subscribe(`s${i}`, SUBSCRIBE);
  await until('the 11th refused', () => live.received.some((m) => m.type === 'error'));
  const errors = live.received.filter((m) => m.type === 'error');
  assert.deepEqual(errors.map((m) => m.id), ['s10']);
  assert.equal(errors[0]!.payload[0].extensions.code, 'TOO_MANY_SUBSCRIPTIONS', JSON.stringify(errors));
  await until('ten live', () => subscribers() === before + 10);
  // Completing one frees its place.
  live.complete('s0');
  await until('one ended', () => subscribers() === before + 9);
  live.subscribe('again', SUBSCRIBE);
  await until('the place taken again', () => subscribers() === before + 10);
  await live.close();
  await until('all ended with the connection', () => subscribers() === before);
});

test('a refused subscription\'s error carries its code, as every back-office error does: FORBIDDEN for a tenant not granted', { timeout: 30_000 }, async () => {
  const before = subscribers();
  const live = await connect(url, credentials());
  sockets.push(live);
  const other = (await ctx.tenants.createTenant({ name: 'Not granted' })).tenant_id;
  live.subscribe('other', 'subscription S($t: [ID!]) { betUpdated(tenant_ids: $t) { bet_id } }', { t: [other] });
  await until('the refusal', () => live.received.some((m) => m.id === 'other'));
  const [refused] = live.received;
  assert.equal(refused!.type, 'error', JSON.stringify(refused));
  assert.deepEqual(refused!.payload.map((e: { extensions?: unknown }) => e.extensions), [{ code: 'FORBIDDEN', reason: 'tenant_not_granted' }]);
  assert.equal(subscribers(), before, 'nothing subscribed');
  await live.close();
});
