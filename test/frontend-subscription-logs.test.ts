// A subscription refused for the client's own doing (over the connection's limit) is logged at
// info, not at error as mercurius would: error lines stay the server's own failures. Errors that
// are not a client's refusal still reach the log at error. A connection logs no warning.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { GraphQLError } from 'graphql';
import { AppError } from '../src/errors.ts';
import { logMethod } from '../src/http/log.ts';
import { connect, type WsClient } from './helpers/graphql-ws.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';
import { until } from './wallet-fixtures.ts';

const lines: Array<{ level: number; msg: string; refusals?: Array<{ code: string }> }> = [];
let frontend: JwtFrontend;
let client: WsClient | undefined;
before(async () => {
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  frontend = await jwtFrontend('Logged', { logger: { level: 'info', stream } });
});
after(async () => {
  await client?.close();
  await frontend.close();
});

test('the 11th subscription of a connection is refused to the client and logged at info, not error', { timeout: 30_000 }, async () => {
  const { idp, tenantId, ctx } = frontend;
  client = await connect(`${frontend.base.replace('http', 'ws')}/graphql`,
    { 'x-tenant-id': tenantId, token: await idp.token(randomUUID(), { now: ctx.clock() }) });
  for (let i = 0; i < 11; i++) client.subscribe(`s${i}`, 'subscription { myBetUpdated { id status } }');
  await until('the 11th refused', () => client!.received.some((m) => m.type === 'error'));
  await until('the refusal logged', () => lines.some((l) => l.msg === 'subscription refused'));
  const refused = lines.find((l) => l.msg === 'subscription refused')!;
  assert.equal(refused.level, 30);
  assert.deepEqual(refused.refusals!.map((r) => r.code), ['too_many_subscriptions']);
  assert.deepEqual(lines.filter((l) => l.level >= 40), [], 'nothing at warn or above (an upgrade failed by a second listener was a warning)');
});

test('errors that are not a client\'s refusal are logged as they come', () => {
  const calls: Array<{ how: string; args: unknown[] }> = [];
  const logger = { info: (...args: unknown[]) => calls.push({ how: 'info', args }) };
  const method = (...args: unknown[]) => calls.push({ how: 'as asked', args });
  const ours = new GraphQLError('x', { originalError: new AppError('internal_error', 'boom') });
  const plain = new GraphQLError('Cannot query field "nope"');
  const refusal = new GraphQLError('y', { originalError: new AppError('too_many_subscriptions', 'full') });
  for (const args of [[[ours]], [[plain]], [[refusal, plain]], [new Error('down')], [{ err: 1 }, 'failed']]) {
    calls.length = 0;
    logMethod.call(logger, args, method, 50);
    assert.deepEqual(calls.map((c) => c.how), ['as asked'], JSON.stringify(args));
  }
  calls.length = 0;
  logMethod.call(logger, [[refusal]], method, 40);
  assert.deepEqual(calls.map((c) => c.how), ['as asked'], 'only error-level lines are looked at');
  calls.length = 0;
  logMethod.call(logger, [[refusal]], method, 50);
  assert.deepEqual(calls.map((c) => c.how), ['info']);
});
