// Placement edges: the price policy compared exactly, against the price the user sent; the
// frontend endpoint's answer to a subscription sent as an HTTP request, to a GET naming no
// operation of its query and to a body over its limit; a jwt user's nbf that is not a number, and
// a tenant key too small for RS256; a tote stake whose percentage would round to 0; a PLACE bet on
// a field too small for place terms.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { checkInput } from '../src/modules/betting/placement.ts';
import { bettingFixture } from './betting-fixture.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { TestJwks } from './helpers/jwks.ts';

const MEETING = 779101;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let ctx: TestContext;
let jwks: TestJwks;
before(async () => {
  [f, ctx, jwks] = await Promise.all([bettingFixture(MEETING), createTestApp(), TestJwks.start()]);
});
after(() => Promise.all([f.close(), ctx.close(), jwks.close()]));

const win = (runner: number, price: number, stake = 10) => ({
  idempotencyKey: randomUUID(), type: 'WIN', stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[runner]], price }],
});

test('price policy: a current price below the price seen by any amount is refused, and nothing is stored', async () => {
  // Runner 1 is at 3. A seen price of 3.00000001 is above it: taking the bet at 3 gives the user less than seen.
  const userId = randomUUID();
  await assert.rejects(f.services.betting.placeBet(f.user(userId), win(1, 3.00000001)),
    (e: unknown) => e instanceof AppError && e.code === 'price_changed' && /is now 3, below the 3.00000001 seen/.test(e.message));
  assert.equal(await f.betOf(userId), undefined, 'no bet stored');
  // A seen price below the current one by as little is the user's gain: taken at the current price.
  const taken = await f.services.betting.placeBet(f.user(randomUUID()), win(1, 2.99999999));
  assert.deepEqual([taken.status, taken.odds], ['ACCEPTED', 3]);
});

test('myBetUpdated sent as an HTTP request: BAD_REQUEST saying it is served over WebSocket, not a bet "undefined" not found', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'x-tenant-id': randomUUID() },
    payload: JSON.stringify({ query: 'subscription { myBetUpdated { id } }' }) });
  assert.ok(res.statusCode < 500, res.body);
  const errors = (res.json() as { errors: Array<{ message: string; extensions: { code: string } }> }).errors;
  assert.equal(errors.length, 1, res.body);
  assert.equal(errors[0]!.extensions.code, 'BAD_REQUEST', res.body);
  assert.match(errors[0]!.message, /WebSocket/);
});

test('a GET naming no operation of its query is 400 GRAPHQL_VALIDATION_FAILED, even for a document already run: never a 500', async () => {
  const get = (params: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `/graphql?${new URLSearchParams(params)}` });
  const query = 'query A { __typename } query B { __typename }';
  const named = await get({ query, operationName: 'B' }); // now in mercurius's cache of documents
  assert.deepEqual([named.statusCode, named.json().data], [200, { __typename: 'Query' }], named.body);
  for (const [params, message] of [[{ query, operationName: 'Nope' }, 'Unknown operation named "Nope".'],
    [{ query }, 'Must provide operation name if query contains multiple operations.']] as const) {
    const res = await get(params);
    assert.deepEqual([res.statusCode, res.json().errors.map((e: { message: string; extensions: { code: string } }) => [e.extensions.code, e.message])],
      [400, [['GRAPHQL_VALIDATION_FAILED', message]]], res.body);
  }
});

test('jwt: an nbf that is not a number is a malformed token, not one "not valid yet"', async () => {
  const tenantId = (await ctx.tenants.createTenant({ name: 'Nbf' })).tenant_id;
  await ctx.services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId });
  const token = await jwks.token(randomUUID(), { now: ctx.clock(), claims: { nbf: 'soon' } });
  await assert.rejects(ctx.services.users.authenticate({ authorization: `Bearer ${token}`, 'x-tenant-id': tenantId }),
    (e: unknown) => e instanceof AppError && e.extensions.reason === 'token_malformed' && /"nbf"/.test(e.message));
  // A numeric nbf beyond the leeway is still not_yet_valid.
  const early = await jwks.token(randomUUID(), { now: ctx.clock(), nbfIn: 120 });
  await assert.rejects(ctx.services.users.authenticate({ authorization: `Bearer ${early}`, 'x-tenant-id': tenantId }),
    (e: unknown) => e instanceof AppError && e.extensions.reason === 'not_yet_valid');
});

test('jwt: a tenant key under 2048 bits is refused as key_too_small (a 401 naming the operator\'s fault), not a 500', async () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const kid = 'small-key';
  jwks.keys.push({ kid, alg: 'RS256', publicKey: publicKey as never, privateKey: privateKey as never,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } });
  const tenantId = (await ctx.tenants.createTenant({ name: 'Small key' })).tenant_id;
  await ctx.services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId });
  // Signed by hand: jose itself refuses to sign with such a key.
  const userId = randomUUID();
  const now = Math.floor(ctx.clock().getTime() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', kid })}.${part({ client_id: jwks.clientId, token_use: 'access', username: userId, aud: userId, iat: now, exp: now + 600 })}`;
  const token = `${signed}.${sign('sha256', Buffer.from(signed), privateKey).toString('base64url')}`;
  const res = await ctx.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${token}` },
    payload: JSON.stringify({ query: '{ myBets { bets { id } } }' }) });
  const error = (res.json() as { errors: Array<{ extensions: { code: string; reason?: string } }> }).errors[0]!;
  assert.deepEqual([error.extensions.code, error.extensions.reason], ['UNAUTHENTICATED', 'key_too_small'], res.body);
  // As docs/frontend.md says: an error of a field that ran, so HTTP 200, and no challenge header.
  assert.deepEqual([res.statusCode, res.headers['www-authenticate']], [200, undefined]);
});

test('a tote stake whose percentage rounds to 0 at 4 places is refused; one cut so far by the tenant\'s limits is not taken at 0 %', async () => {
  const box = (stake: number) => ({ idempotencyKey: randomUUID(), type: 'FIRST_FOUR', boxed: true, stake,
    legs: [{ meetingId: MEETING, raceNumber: 2, selections: [Array.from({ length: 12 }, (_, i) => i + 1)] }] });
  // 12 runners boxed: 11,880 combinations; $0.01 is 0.0000842 % a combination, $0.02 is 0.0001 %.
  assert.throws(() => checkInput(box(0.01)), (e: unknown) => e instanceof AppError && e.code === 'invalid_stake' && /at least 0\.02/.test(e.message));
  assert.equal(checkInput(box(0.02)).stakeCents, 2n);
  await f.services.catalogue.importCatalog({ meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 2, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['firstfour'],
      runners: Array.from({ length: 12 }, (_, i) => ({ number: i + 1, name: `R${i + 1}` })) }] });
  await f.services.betting.setLimits(f.tenantId, { maxStake: '0.01' });
  try {
    const cut = await f.services.betting.placeBet(f.user(randomUUID()), box(0.05));
    assert.deepEqual([cut.status, cut.acceptedStake, cut.percentage, cut.reasonCode], ['REJECTED', 0, null, 'max_stake'], JSON.stringify(cut));
    assert.match(cut.reason!, /max_stake leave 0\.01, below 0\.0001 % a combination, to accept/);
  } finally {
    await f.services.betting.setLimits(f.tenantId, { maxStake: null });
  }
});

test('an import may not drop a product of an open race that bets still to settle need; one without such bets may', async () => {
  const exacta = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'EXACTA', boxed: true, stake: 2, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1, 2]] }],
  });
  assert.equal(exacta.status, 'ACCEPTED');
  const race = (n: number, products: string[]) => ({ meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC',
    code: 'T', races: [{ race_number: n, start_time: new Date(Date.now() + 3600_000).toISOString(), products, runners: [] }] });
  // Without exacta, no result could give the exacta bet its dividend: it would wait for ever.
  await assert.rejects(f.services.catalogue.importCatalog(race(1, ['win'])),
    (e: unknown) => e instanceof AppError && e.code === 'race_not_trading' && /race 1 of meeting 779101 \(open\), dropping one its bets still to settle need/.test(e.message));
  assert.deepEqual((await f.services.catalogue.getRace(MEETING, 1))!.products, ['win', 'exacta']);
  await f.services.catalogue.importCatalog(race(1, ['exacta', 'win', 'place'])); // keeping them, adding one: fine
  await f.services.catalogue.importCatalog(race(2, ['firstfour', 'trifecta'])); // race 2's first four bet was rejected: nothing in play
  assert.deepEqual((await f.services.catalogue.getRace(MEETING, 2))!.products, ['firstfour', 'trifecta']);
  await f.services.catalogue.importCatalog(race(2, ['trifecta']));
});

test('PLACE on a field its place terms pay no places for is refused, nothing stored; terms paying that field take it', async () => {
  const place = { idempotencyKey: randomUUID(), type: 'PLACE', stake: 5, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 1.5 }] };
  assert.equal((await f.services.catalogue.requireRace(MEETING, 1)).place_min_starters, 5, "the default terms ('*'): places from 5 starters");
  const userId = randomUUID();
  await assert.rejects(f.services.betting.placeBet(f.user(userId), place), (e: unknown) => e instanceof AppError && e.code === 'product_not_offered'
    && e.message === `legs[0] (meeting ${MEETING} race 1): no place betting: 4 starters, places are paid from 5`);
  assert.equal(await f.betOf(userId), undefined, 'no bet stored');
  await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 3 }, { min_starters: 4, places: 1 }]);
  assert.equal((await f.services.catalogue.requireRace(MEETING, 1)).place_min_starters, 4, "the meeting's jurisdiction's own terms");
  const taken = await f.services.betting.placeBet(f.user(userId), place);
  assert.equal(taken.status, 'ACCEPTED');
});

test('a body that is not JSON, too large or of another content type is the client\'s mistake: 400/413/415 saying so, never "internal error"', async () => {
  const post = (payload: string, type = 'application/json') =>
    ctx.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': type, 'x-tenant-id': randomUUID() }, payload });
  const cases: Array<[string, string, number, string, RegExp]> = [
    ['{"query": "{ __typename }"', 'application/json', 400, 'BAD_REQUEST', /not valid JSON/],
    [JSON.stringify({ query: `{ __typename } #${'x'.repeat(1_100_000)}` }), 'application/json', 413, 'PAYLOAD_TOO_LARGE', /larger than this endpoint takes/],
    ['<query/>', 'application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE', /application\/json/],
  ];
  for (const [payload, type, status, code, message] of cases) {
    const res = await post(payload, type);
    const errors = (res.json() as { errors: Array<{ message: string; extensions: { code: string } }> }).errors;
    assert.deepEqual([res.statusCode, errors.map((e) => e.extensions.code)], [status, [code]], res.body);
    assert.match(errors[0]!.message, message);
  }
});

test('a body over the limit on /graphql says the limit in bytes, as the back-office and REST routes do', async () => {
  const limit = ctx.config.WAGERLINE_BODY_LIMIT_BYTES;
  const res = await ctx.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', 'x-tenant-id': randomUUID() },
    payload: JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(limit) }) });
  assert.equal(res.statusCode, 413);
  assert.deepEqual((res.json() as { errors: unknown[] }).errors,
    [{ message: `the body is larger than this endpoint takes: at most ${limit} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }]);
});
