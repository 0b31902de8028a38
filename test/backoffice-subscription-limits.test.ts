// betUpdated over a real WebSocket on 127.0.0.1: a back-office connection holds a bounded number
// of subscriptions, and an id subscribed twice closes it (graphql-transport-ws: 4409) rather than
// leaving the first subscription running after the connection is gone — each one is a listener on
// every bet change of the process that reads the bet again for every update.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, BACKOFFICE, type BackofficeClient } from './helpers/backoffice.ts';
import { checkDuplicateId, checkSubscriptionLimit, connect, rawSocket, refusal, type WsClient } from './helpers/graphql-ws.ts';
import { until } from './wallet-fixtures.ts';

let ctx: TestContext;
let client: BackofficeClient;
let url: string;
const sockets: WsClient[] = [];
const SUBSCRIBE = 'subscription { betUpdated { bet_id status } }';
/** WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT here (20 by default). */
const PER_CLIENT = 3;

before(async () => {
  ctx = await createTestApp({ WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT: String(PER_CLIENT) });
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

test('an id subscribed twice closes the connection with 4409, and no subscription outlives it', { timeout: 30_000 }, async () => {
  await checkDuplicateId(await rawSocket(url, credentials(), SUBSCRIBE), subscribers);
});

test('a connection holds at most 10 subscriptions: the 11th is an error naming the limit, the others live on', { timeout: 30_000 }, async () => {
  const live = await connect(url, credentials());
  sockets.push(live);
  await checkSubscriptionLimit(live, SUBSCRIBE, subscribers);
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

test('a client holds at most WAGERLINE_BACKOFFICE_CONNECTIONS_PER_CLIENT live connections: one more is closed with 4429, one closed frees its place', { timeout: 30_000 }, async () => {
  const other = await backofficeClient(ctx);
  const credentialsOf = (c: BackofficeClient) => ({ 'x-api-key': c.clientId, authorization: c.headers.authorization! });
  const held = await Promise.all(Array.from({ length: PER_CLIENT }, () => connect(url, credentialsOf(other))));
  sockets.push(...held);
  assert.deepEqual(await refusal(url, credentialsOf(other)), { code: 4429, reason: `TOO_MANY_CONNECTIONS: ${PER_CLIENT} live connections for this client already` });
  sockets.push(await connect(url, credentials())); // another client is not held back
  await held[0]!.close();
  await until('a place given back', async () => {
    try {
      sockets.push(await connect(url, credentialsOf(other)));
      return true;
    } catch {
      return false;
    }
  });
});
