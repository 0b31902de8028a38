// The cache of verified tokens on its own: bounded, keyed by tenant and configuration, and never
// answering for a token outside its times (exp, nbf, with the leeway).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jwtVerify, SignJWT } from 'jose';
import { createVerifiedTokenCache } from './verified-tokens.ts';

const at = (seconds: number) => new Date(seconds * 1000);

test('keyed by tenant, configuration version and token; the oldest goes first when full', () => {
  const cache = createVerifiedTokenCache({ ttlMs: 60_000, maxEntries: 2, leewaySeconds: 60 });
  cache.set('t1', 'v1', 'tok-a', { userId: 'a', exp: 2000, nbf: undefined });
  assert.equal(cache.get('t1', 'v1', 'tok-a', at(1000))?.userId, 'a');
  assert.equal(cache.get('t2', 'v1', 'tok-a', at(1000))?.userId, undefined, 'another tenant');
  assert.equal(cache.get('t1', 'v2', 'tok-a', at(1000))?.userId, undefined, 'another configuration');
  cache.set('t1', 'v1', 'tok-b', { userId: 'b', exp: 2000, nbf: undefined });
  cache.set('t1', 'v1', 'tok-c', { userId: 'c', exp: 2000, nbf: undefined });
  assert.equal(cache.stats().size, 2);
  assert.equal(cache.get('t1', 'v1', 'tok-a', at(1000))?.userId, undefined, 'the oldest was dropped');
  assert.equal(cache.get('t1', 'v1', 'tok-c', at(1000))?.userId, 'c');
  assert.equal(cache.stats().hits, 2);
});

test('exp and nbf are checked at every use, with the leeway', () => {
  const cache = createVerifiedTokenCache({ ttlMs: 60_000, maxEntries: 10, leewaySeconds: 60 });
  cache.set('t', 'v', 'tok', { userId: 'u', exp: 2000, nbf: 1000 });
  assert.equal(cache.get('t', 'v', 'tok', at(2059.999))?.userId, 'u', 'within the leeway after exp');
  assert.equal(cache.get('t', 'v', 'tok', at(2060))?.userId, undefined, 'past exp and its leeway');
  assert.equal(cache.get('t', 'v', 'tok', at(940))?.userId, 'u', 'within the leeway before nbf');
  assert.equal(cache.get('t', 'v', 'tok', at(939.999))?.userId, undefined, 'before nbf and its leeway');
});

test('a ttl of 0 keeps nothing', () => {
  const cache = createVerifiedTokenCache({ ttlMs: 0, maxEntries: 10, leewaySeconds: 60 });
  cache.set('t', 'v', 'tok', { userId: 'u', exp: 2000, nbf: undefined });
  assert.equal(cache.get('t', 'v', 'tok', at(1000))?.userId, undefined);
  assert.equal(cache.stats().size, 0);
});

test('a cached token is accepted at exactly the instants jose accepts it', async () => {
  // Claims are checked the same whatever the algorithm: HS256 keeps a run short.
  const secret = new TextEncoder().encode('a secret of the property test, 32+ bytes long');
  await fc.assert(fc.asyncProperty(
    // Offsets around now, so that the boundaries (exp = now - 60, nbf = now + 60) come up often.
    fc.integer({ min: -70, max: 70 }), fc.option(fc.integer({ min: -70, max: 70 }), { nil: undefined }), fc.integer({ min: 0, max: 999 }),
    async (expOffset, nbfOffset, millis) => {
      const nowSeconds = 1_000_000_000;
      const [exp, nbf] = [nowSeconds + expOffset, nbfOffset === undefined ? undefined : nowSeconds + nbfOffset];
      const token = await new SignJWT({ ...(nbf !== undefined && { nbf }) }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(secret);
      const now = new Date(nowSeconds * 1000 + millis);
      const jose = await jwtVerify(token, secret, { clockTolerance: 60, currentDate: now }).then(() => true, () => false);
      const cache = createVerifiedTokenCache({ ttlMs: 60_000, maxEntries: 1, leewaySeconds: 60 });
      cache.set('t', 'v', token, { userId: 'u', exp, nbf });
      assert.equal(cache.get('t', 'v', token, now)?.userId === 'u', jose, `exp now${expOffset}, nbf now+${nbfOffset}, +${millis} ms`);
    },
  ), { numRuns: 500 });
});
