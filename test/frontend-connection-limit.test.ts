// A frontend user holds a bounded number of live WebSocket connections to /graphql in a process
// (docs/frontend.md): one more is refused at connection_init, closed with 4429
// TOO_MANY_CONNECTIONS, and a connection gives its place back however it ends. Real WebSockets on
// 127.0.0.1; the limit is set to 3 (WAGERLINE_FRONTEND_CONNECTIONS_PER_USER) instead of 20.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import type { TestContext } from './helpers/app.ts';
import { connect, refusal, type WsClient } from './helpers/graphql-ws.ts';
import { TestJwks } from './helpers/jwks.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';
import { until } from './wallet-fixtures.ts';

const LIMIT = 3;
const REFUSED = { code: 4429, reason: `TOO_MANY_CONNECTIONS: ${LIMIT} live connections for this user already` };
let frontend: JwtFrontend;
let ctx: TestContext;
let idp: TestJwks;
let url: string;
let tenantId: string;
const sockets: WsClient[] = [];

before(async () => {
  frontend = await jwtFrontend('Connections', {}, { WAGERLINE_FRONTEND_CONNECTIONS_PER_USER: String(LIMIT) });
  ({ ctx, idp, tenantId } = frontend);
  url = `${frontend.base.replace('http', 'ws')}/graphql`;
});
after(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await frontend.close();
});

const payload = async (userId: string, tenant = tenantId, expIn?: number) =>
  ({ 'x-tenant-id': tenant, token: await idp.token(userId, { now: ctx.clock(), ...(expIn !== undefined && { expIn }) }) });

async function open(userId: string, tenant = tenantId): Promise<WsClient> {
  const client = await connect(url, await payload(userId, tenant));
  sockets.push(client);
  return client;
}

/** A graphql-transport-ws socket of `userId`, acknowledged, and the close code it ends with. */
async function rawSocket(userId: string, expIn?: number) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: await payload(userId, tenantId, expIn) }));
  const answer = await new Promise<string>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)).type)));
  assert.equal(answer, 'connection_ack');
  return { socket, closed };
}

/** Waits until a connection of `userId` is admitted again (refusals meanwhile take no place). */
async function admittedAgain(userId: string, what: string): Promise<void> {
  await until(what, async () => {
    try {
      await open(userId);
      return true;
    } catch {
      return false;
    }
  }, 8000);
}

test(`a user holds at most ${LIMIT} live connections: one more is closed with 4429; other users, and the same user of another tenant, are not held back`, { timeout: 30_000 }, async () => {
  const user = randomUUID();
  for (let i = 0; i < LIMIT; i++) await open(user);
  assert.deepEqual(await refusal(url, await payload(user)), REFUSED);
  assert.deepEqual(await refusal(url, await payload(user)), REFUSED, 'a refused connection took no place, nor gave one back');
  await open(randomUUID());
  const other = (await ctx.tenants.createTenant({ name: 'Connections Two' })).tenant_id;
  await ctx.services.users.setAuth(other, { mode: 'jwt', jwksUrl: idp.url, clientId: idp.clientId });
  await open(user, other);
});

test('a connection gives its place back however it ends: closed by the client, dropped, closed by the server at token expiry', { timeout: 30_000 }, async () => {
  const user = randomUUID();
  const polite = await open(user);
  const dropped = await rawSocket(user);
  const expiring = await rawSocket(user, -58); // within the 60 s leeway for about two more seconds
  assert.deepEqual(await refusal(url, await payload(user)), REFUSED);

  await polite.close();
  await admittedAgain(user, 'the place of a connection the client closed');
  dropped.socket.terminate(); // no close frame: the TCP connection just ends
  await admittedAgain(user, 'the place of a dropped connection');
  assert.equal(await expiring.closed, 4401);
  await admittedAgain(user, 'the place of a connection the server closed');
  // Each end gave back one place, no more.
  assert.deepEqual(await refusal(url, await payload(user)), REFUSED);
});

test('a connection that leaves while it is being authenticated holds no place', { timeout: 30_000 }, async () => {
  // A tenant of its own, whose identity provider answers slowly: its first users wait for the
  // JWKS (fetched once), and these sockets are gone before they are authenticated.
  const slow = await TestJwks.start();
  after(() => slow.close());
  slow.delayMs = 400;
  const tenant = (await ctx.tenants.createTenant({ name: 'Connections Slow' })).tenant_id;
  await ctx.services.users.setAuth(tenant, { mode: 'jwt', jwksUrl: slow.url, clientId: slow.clientId });
  const fetchesBefore = slow.fetches;
  const user = randomUUID();
  const init = { 'x-tenant-id': tenant, token: await slow.token(user, { now: ctx.clock() }) };
  await Promise.all(Array.from({ length: LIMIT }, async () => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: init }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.terminate();
  }));
  await until('the JWKS fetched and answered', () => slow.fetches > fetchesBefore);
  await new Promise((resolve) => setTimeout(resolve, 2 * slow.delayMs));
  for (let i = 0; i < LIMIT; i++) sockets.push(await connect(url, init));
  assert.deepEqual(await refusal(url, init), REFUSED);
});
