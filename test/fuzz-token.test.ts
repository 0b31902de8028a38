// Fuzzing POST /oauth/token with JSON and form bodies and Basic headers built from hostile values.
// Every answer is a 2xx or RFC 6749 §5.2's {error, error_description}, never a 5xx, and the
// endpoint writes nothing. Replay a failure with FUZZ_SEED (test/helpers/fuzz.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { assertAnswer, formEncode, fuzzRuns, hostileValue, nastyString, okShare, tablesFingerprint } from './helpers/fuzz.ts';

let ctx: TestContext;
let id: string;
let secret: string;
before(async () => {
  // The per-address rate limit would turn most cases into 429s.
  ctx = await createTestApp({ WAGERLINE_TOKEN_RATE_LIMIT: '100000' });
  const seeded = await seedClient(ctx);
  id = seeded.client.client_id;
  secret = seeded.client.client_secret;
});
after(() => ctx.close());

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${formEncode(user)}:${formEncode(pass)}`).toString('base64')}`;

/** Text fields without U+0000: a NUL in a credential is fuzzed by its own property below. */
const text = nastyString().map((s) => s.replace(/\u0000/g, ''));
const credential = fc.oneof(fc.constant(undefined), fc.constant('client_credentials'), text,
  fc.constantFrom('ID', 'SECRET')); // replaced by the real client id / secret
const real = (v: string | undefined) => (v === 'ID' ? id : v === 'SECRET' ? secret : v);

/** Mostly the right value (so that many cases get past the first check), else anything. */
const mostly = <T>(right: T) => fc.oneof({ weight: 3, arbitrary: fc.constant(right) }, { weight: 2, arbitrary: credential });
const tokenRequest = fc.record({
  grant_type: mostly('client_credentials'),
  client_id: mostly('ID'),
  client_secret: mostly('SECRET'),
  scope: fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.constantFrom('upload', 'report', 'upload report'), text),
  extra: fc.dictionary(text, text, { maxKeys: 2 }),
  basic: fc.option(fc.tuple(mostly('ID'), mostly('SECRET')), { nil: undefined }),
  rawAuthorization: fc.option(fc.oneof(text, text.map((s) => `Basic ${s}`)), { nil: undefined, freq: 4 }),
  form: fc.boolean(),
});

// Most cases carry some wrong credential: ~2% get a token, enough to keep the success path in play.
const answered = okShare(0.005);

function inject(fields: Record<string, unknown>, form: boolean, authorization?: string) {
  const defined = Object.entries(fields).filter(([, v]) => v !== undefined);
  const payload = form ? defined.map(([k, v]) => `${formEncode(k)}=${formEncode(String(v))}`).join('&') : JSON.stringify(Object.fromEntries(defined));
  return ctx.app.inject({
    method: 'POST', url: '/oauth/token', payload,
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', ...(authorization ? { authorization } : {}) },
  });
}

test('fuzz: any token request answers a token or an OAuth error, never a 5xx, and writes nothing', async () => {
  const before = await tablesFingerprint(ctx.db.pool);
  await fc.assert(fc.asyncProperty(tokenRequest, async (r) => {
    const authorization = r.basic ? basic(real(r.basic[0]) ?? '', real(r.basic[1]) ?? '') : r.rawAuthorization;
    const fields = { ...r.extra, grant_type: real(r.grant_type), client_id: real(r.client_id), client_secret: real(r.client_secret), scope: r.scope };
    const res = await inject(fields, r.form, authorization);
    assertAnswer(res, { oauth: true });
    if (res.statusCode === 200) assert.equal(typeof res.json().access_token, 'string');
    answered.count(res.statusCode);
  }), fuzzRuns(400)); // every case naming the real client verifies a secret hash: the slowest property
  answered.check();
  assert.equal(await tablesFingerprint(ctx.db.pool), before);
});

test('fuzz: raw form bodies (stray %, NUL bytes, broken UTF-8) never cause a 5xx', async () => {
  const raw = fc.array(fc.oneof(text, fc.constantFrom('%', '%zz', '%e2%82', '%ed%a0%80', '%ff', '&', '=', '+', 'grant_type=client_credentials')), { maxLength: 8 })
    .map((parts) => parts.join(''));
  await fc.assert(fc.asyncProperty(raw, fc.boolean(), async (payload, withBasic) => {
    const res = await ctx.app.inject({
      method: 'POST', url: '/oauth/token', payload,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withBasic ? { authorization: basic(id, secret) } : {}) },
    });
    assertAnswer(res, { oauth: true });
  }), fuzzRuns(200));
});

test('fuzz: the real credentials, however encoded in the body, get a token', async () => {
  await fc.assert(fc.asyncProperty(fc.boolean(), fc.boolean(), fc.dictionary(fc.string({ minLength: 1 }).filter((k) => !['grant_type', 'client_id', 'client_secret', 'scope', '__proto__'].includes(k)), fc.string(), { maxKeys: 3 }),
    async (form, viaBasic, extra) => {
      const fields = viaBasic ? { ...extra, grant_type: 'client_credentials' } : { ...extra, grant_type: 'client_credentials', client_id: id, client_secret: secret };
      const res = await inject(fields, form, viaBasic ? basic(id, secret) : undefined);
      assert.equal(res.statusCode, 200, res.body);
    }), fuzzRuns(40)); // each grant verifies the secret hash: slow on purpose
});

// A JSON body holding a "__proto__" key is refused whatever else it holds (Fastify's parser refuses
// prototype poisoning): the property above leaves that key out, this test holds the refusal.
test('a JSON body with a __proto__ key is refused as invalid_request, even with the real credentials', async () => {
  const payload = `{"__proto__":"","grant_type":"client_credentials","client_id":${JSON.stringify(id)},"client_secret":${JSON.stringify(secret)}}`;
  const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', payload, headers: { 'content-type': 'application/json' } });
  assertAnswer(res, { oauth: true });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().error, 'invalid_request');
});

test('fuzz: non-string credentials in a JSON body are refused as invalid_request', async () => {
  await fc.assert(fc.asyncProperty(fc.constantFrom('grant_type', 'client_id', 'client_secret'), hostileValue.filter((v) => typeof v !== 'string' && v !== null), async (name, value) => {
    const fields: Record<string, unknown> = { grant_type: 'client_credentials', client_id: id, client_secret: secret, [name]: value };
    const res = await inject(fields, false);
    assertAnswer(res, { oauth: true });
    assert.equal(res.statusCode, 400, `${name}=${JSON.stringify(value).slice(0, 100)} answered ${res.statusCode}`);
  }), fuzzRuns(100));
});

test('fuzz: a client_id holding U+0000 is an OAuth error, not a 5xx', async () => {
  await fc.assert(fc.asyncProperty(text, text, fc.boolean(), async (a, b, viaBasic) => {
    const clientId = `${a}\u0000${b}`;
    const res = viaBasic
      ? await inject({ grant_type: 'client_credentials' }, false, basic(clientId, secret))
      : await inject({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }, false);
    assertAnswer(res, { oauth: true });
  }), fuzzRuns(50));
});
