// myBetUpdated over a real WebSocket on 127.0.0.1: a connection holds a bounded number of
// subscriptions, an id used twice closes it (graphql-transport-ws: 4409) rather than orphaning the
// first subscription, and a jwt user's connection ends when the token does (4401 expired).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { TestContext } from './helpers/app.ts';
import { checkDuplicateId, checkSubscriptionLimit, connect, rawSocket, type WsClient } from './helpers/graphql-ws.ts';
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

/** A raw socket of a user whose token expires in `expIn` seconds (helpers/graphql-ws.ts). */
async function rawSocketOf(expIn?: number) {
  const token = await idp.token(randomUUID(), { now: ctx.clock(), ...(expIn !== undefined && { expIn }) });
  return rawSocket(url, { 'x-tenant-id': tenantId, token }, SUBSCRIBE);
}

test('a connection holds at most 10 subscriptions: the 11th is an error naming the limit, the others live on', { timeout: 30_000 }, async () => {
  await checkSubscriptionLimit(await open(), SUBSCRIBE, subscribers);
});

test('an id subscribed twice closes the connection with 4409, and no subscription outlives it', { timeout: 30_000 }, async () => {
  await checkDuplicateId(await rawSocketOf(), subscribers);
});

test('a jwt user\'s connection is closed with 4401 "UNAUTHENTICATED: expired" once the token expires (60 s leeway)', { timeout: 30_000 }, async () => {
  const before = subscribers();
  // Past its exp but within the leeway for about two more seconds.
  const raw = await rawSocketOf(-58);
  raw.subscribe('live');
  await until('live', () => subscribers() > before);
  const closed = await Promise.race([raw.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 6000))]);
  if (closed === 'still open') raw.socket.close();
  assert.deepEqual(closed, { code: 4401, reason: 'UNAUTHENTICATED: expired' });
  await until('its subscription ended', () => subscribers() === before, 3000);
});
