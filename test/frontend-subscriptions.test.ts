// myBetUpdated over a real WebSocket on 127.0.0.1: a connection holds a bounded number of
// subscriptions, an id used twice closes it (graphql-transport-ws: 4409) rather than orphaning the
// first subscription, and a jwt user's connection ends when the token does (4401 expired).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import type { TestContext } from './helpers/app.ts';
import { connect, type WsClient } from './helpers/graphql-ws.ts';
import type { TestJwks } from './helpers/jwks.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';
import { until } from './wallet-fixtures.ts';

let frontend: JwtFrontend;
let ctx: TestContext;
let idp: TestJwks;
let url: string;
let tenantId: string;
const sockets: WsClient[] = [];
const SUBSCRIBE = 'subscription { myBetUpdated { id status } }';

before(async () => {
  frontend = await jwtFrontend('Live');
  ({ ctx, idp, tenantId } = frontend);
  url = `${frontend.base.replace('http', 'ws')}/graphql`;
});
after(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await frontend.close();
});

const subscribers = () => ctx.services.betUpdates.subscribers();

async function open(userId = randomUUID(), expIn?: number): Promise<WsClient> {
  const client = await connect(url, { 'x-tenant-id': tenantId, token: await idp.token(userId, { now: ctx.clock(), ...(expIn !== undefined && { expIn }) }) });
  sockets.push(client);
  return client;
}

/** A raw graphql-transport-ws socket, acknowledged, and the close code and reason it ends with. */
async function rawSocket(expIn?: number) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve) => socket.once('open', resolve));
  const token = await idp.token(randomUUID(), { now: ctx.clock(), ...(expIn !== undefined && { expIn }) });
  socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-tenant-id': tenantId, token } }));
  await new Promise((resolve) => socket.once('message', resolve));
  return { socket, closed, subscribe: (id: string) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: SUBSCRIBE } })) };
}

test('a connection holds at most 10 subscriptions: the 11th is an error naming the limit, the others live on', { timeout: 30_000 }, async () => {
  const before = subscribers();
  const client = await open();
  for (let i = 0; i < 11; i++) client.subscribe(`s${i}`, SUBSCRIBE);
  await until('the 11th refused', () => client.received.some((m) => m.type === 'error'));
  const errors = client.received.filter((m) => m.type === 'error');
  assert.deepEqual(errors.map((m) => m.id), ['s10']);
  assert.equal(errors[0]!.payload[0].extensions.code, 'TOO_MANY_SUBSCRIPTIONS', JSON.stringify(errors));
  await until('ten live', () => subscribers() === before + 10);
  // Completing one frees its place.
  client.complete('s0');
  await until('one ended', () => subscribers() === before + 9);
  client.subscribe('again', SUBSCRIBE);
  await until('the place taken again', () => subscribers() === before + 10);
  await client.close();
  await until('all ended with the connection', () => subscribers() === before);
});

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

test('a jwt user\'s connection is closed with 4401 "UNAUTHENTICATED: expired" once the token expires (60 s leeway)', { timeout: 30_000 }, async () => {
  const before = subscribers();
  // Past its exp but within the leeway for about two more seconds.
  const raw = await rawSocket(-58);
  raw.subscribe('live');
  await until('live', () => subscribers() > before);
  const closed = await Promise.race([raw.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 6000))]);
  if (closed === 'still open') raw.socket.close();
  assert.deepEqual(closed, { code: 4401, reason: 'UNAUTHENTICATED: expired' });
  await until('its subscription ended', () => subscribers() === before, 3000);
});
