// Retries, backoff and token handling of the upload client against a scripted HTTP peer on
// 127.0.0.1 (a real server that answers as told: 503, 429, a dropped connection, 401 ...).
// Sleeps are recorded, not waited.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { toBatches } from './batches.ts';
import { uploadBatches, type UploadOptions } from './uploader.ts';

type Step = number | 'drop' | { status: number; headers?: Record<string, string>; body?: unknown };

interface Seen { path: string; headers: http.IncomingHttpHeaders; body: string }

let server: http.Server;
let base: string;
let script: Step[];
let tokenScript: Step[];
let seen: Seen[];
let tokenCount: number;

function answer(res: http.ServerResponse, step: Step, fallback: unknown): void {
  if (step === 'drop') {
    res.socket?.destroy();
    return;
  }
  const { status, headers, body } = typeof step === 'number' ? { status: step, headers: {}, body: undefined } : step;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body ?? (status === 200 ? fallback : { code: `http_${status}`, detail: `scripted ${status}` })));
}

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body });
      if (req.url === '/oauth/token') {
        tokenCount += 1;
        answer(res, tokenScript.shift() ?? 200, { access_token: `tok-${tokenCount}`, token_type: 'Bearer', expires_in: 3600 });
        return;
      }
      const bets = JSON.parse(body).bets.length;
      answer(res, script.shift() ?? 200, { received: bets, created: bets, updated: 0, unchanged: 0, warnings: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  tokenScript = [];
  seen = [];
  tokenCount = 0;
});

const sleeps: number[] = [];
function options(extra: Partial<UploadOptions> = {}): UploadOptions {
  sleeps.length = 0;
  return {
    apiUrl: base, authUrl: base, clientId: 'cli ent', clientSecret: 's3:cret', version: 2, concurrency: 1,
    policy: { retries: 3, baseMs: 100, maxMs: 1000 },
    http: { sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
    ...extra,
  };
}

function batches(races: number, perRace = 2) {
  const bets = [];
  for (let r = 1; r <= races; r++) for (let i = 0; i < perRace; i++) bets.push({ meetingId: '9', raceNumber: r, bet: { id: `r${r}-${i}` }, at: `line ${bets.length + 1}` });
  return toBatches(bets);
}

const uploads = () => seen.filter((s) => s.path !== '/oauth/token');

test('the token request is spec 4.2: Basic credentials, form body with grant_type and client_id; one token for the run', async () => {
  const summary = await uploadBatches(batches(3), options());
  assert.equal(summary.created, 6);
  assert.equal(summary.tokens, 1);
  const token = seen.find((s) => s.path === '/oauth/token')!;
  assert.equal(token.headers.authorization, `Basic ${Buffer.from('cli+ent:s3%3Acret').toString('base64')}`);
  assert.equal(token.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.deepEqual(Object.fromEntries(new URLSearchParams(token.body)), { grant_type: 'client_credentials', client_id: 'cli ent' });
  assert.deepEqual(uploads().map((u) => [u.path, u.headers.authorization]), Array(3).fill(['/public/uploadRaceV2', 'Bearer tok-1']));
  assert.deepEqual(JSON.parse(uploads()[2]!.body), { meeting_id: 9, race_number: 3, bets: [{ id: 'r3-0' }, { id: 'r3-1' }] });
});

test('V1 goes to /public/uploadRace', async () => {
  await uploadBatches(batches(1), options({ version: 1 }));
  assert.equal(uploads()[0]!.path, '/public/uploadRace');
});

test('network errors, 5xx and 429 are retried with exponential backoff; Retry-After is honoured', async () => {
  script = ['drop', 503, { status: 429, headers: { 'retry-after': '7' } }, 200];
  const summary = await uploadBatches(batches(1), options());
  assert.equal(uploads().length, 4);
  assert.deepEqual(sleeps, [50, 100, 7000]); // base 100 ms doubling, equal jitter at random()=0, then Retry-After
  assert.equal(summary.retries, 3);
  assert.equal(summary.created, 2);
  assert.deepEqual(summary.rejected, []);
});

// A Retry-After that is neither delay-seconds nor an HTTP-date ("1.5", "-5", "soon 3") is no
// instruction: Date.parse reads some of them as dates long past, which would be no wait at all.
test('a malformed Retry-After gets the normal backoff, not an immediate retry', async () => {
  const malformed = ['1.5', '-5', 'soon 3', '120, 5', '', '5s'];
  script = [...malformed.map((value) => ({ status: 503, headers: { 'retry-after': value } })), 200];
  const summary = await uploadBatches(batches(1), options({ policy: { retries: malformed.length, baseMs: 100, maxMs: 1000 } }));
  assert.equal(uploads().length, malformed.length + 1);
  assert.deepEqual(sleeps, [50, 100, 200, 400, 500, 500]); // equal jitter at random()=0: half of 100, 200, 400, 800, 1000, 1000
  assert.deepEqual(summary.rejected, []);
});

test('a Retry-After past the ceiling is waited up to the ceiling, then the batch is sent again', async () => {
  const later = new Date(Date.now() + 3 * 86_400_000).toUTCString();
  script = [
    { status: 429, headers: { 'retry-after': '99999999999999999999999' } },
    { status: 503, headers: { 'retry-after': later } },
    { status: 503, headers: { 'retry-after': '600' } },
    200,
  ];
  const summary = await uploadBatches(batches(1), options({ policy: { retries: 3, baseMs: 100, maxMs: 1000, maxRetryAfterMs: 120_000 } }));
  assert.deepEqual(sleeps, [120_000, 120_000, 120_000]);
  assert.equal(uploads().length, 4);
  assert.equal(summary.created, 2);
  assert.deepEqual(summary.rejected, []);
});

test('a batch still failing after every retry is reported, and the run goes on', async () => {
  script = [500, 500, 500, 500];
  const summary = await uploadBatches(batches(2), options());
  assert.equal(uploads().length, 5);
  assert.equal(summary.rejected.length, 1);
  assert.equal(summary.rejected[0]!.status, 500);
  assert.equal(summary.rejected[0]!.race_number, 1);
  assert.match(summary.rejected[0]!.detail, /gave up after 4 attempts/);
  assert.equal(summary.created, 2);
});

// A 408 is the server giving up waiting for the request (a slow link, a busy proxy), not a fault
// of the batch: sent again, it is stored, or found unchanged if the first one was.
test('a 408 Request Timeout is retried on the normal backoff; one still answered after every retry is reported as given up', async () => {
  script = [{ status: 408, body: { code: 'request_timeout', detail: 'the request took too long' } }, 200];
  const summary = await uploadBatches(batches(1), options());
  assert.equal(uploads().length, 2);
  assert.equal(uploads()[1]!.body, uploads()[0]!.body, 'the same batch, sent again');
  assert.deepEqual(sleeps, [50]); // half of base 100 ms at random()=0, as after a 5xx
  assert.deepEqual([summary.retries, summary.created, summary.rejected], [1, 2, []]);
  script = [408, 408, 408, 408];
  const gaveUp = await uploadBatches(batches(1), options());
  assert.deepEqual(sleeps, [50, 100, 200]);
  assert.deepEqual(gaveUp.rejected.map((r) => [r.status, r.detail]), [[408, 'gave up after 4 attempts: scripted 408']]);
});

// A 413 says the batch itself is over the server's body limit: the same bytes would fail again.
test('a 413 Payload Too Large is not retried: the batch is reported as it was answered', async () => {
  script = [{ status: 413, body: { code: 'payload_too_large', detail: 'body over 8 MiB' } }];
  const summary = await uploadBatches(batches(2), options());
  assert.equal(uploads().length, 2, 'once per batch: the first not sent again, the second sent');
  assert.deepEqual(sleeps, []);
  assert.deepEqual(summary.rejected.map((r) => [r.race_number, r.status, r.code, r.detail]), [[1, 413, 'payload_too_large', 'body over 8 MiB']]);
  assert.equal(summary.created, 2);
});

test('a 4xx is never retried; the rejection carries the service\'s errors and where each bet is in the file', async () => {
  script = [{ status: 400, body: { code: 'validation_failed', detail: 'bad', errors: [{ index: 1, id: 'r1-1', field: 'bets/1/type', message: 'no' }] } }];
  const summary = await uploadBatches(batches(2), options());
  assert.equal(uploads().length, 2);
  assert.deepEqual(sleeps, []);
  assert.deepEqual(summary.rejected, [{
    meeting_id: 9, race_number: 1, bets: 2, status: 400, code: 'validation_failed', detail: 'bad',
    errors: [{ index: 1, id: 'r1-1', field: 'bets/1/type', message: 'no', at: 'line 2' }],
  }]);
});

test('a 401 gets a new token once and sends again', async () => {
  script = [401, 200];
  const summary = await uploadBatches(batches(1), options());
  assert.deepEqual(uploads().map((u) => u.headers.authorization), ['Bearer tok-1', 'Bearer tok-2']);
  assert.equal(summary.tokens, 2);
  assert.deepEqual(summary.rejected, []);
});

test('a second 401, or a 403, stops the run: the rest is not sent', async () => {
  script = [401, 401];
  const summary = await uploadBatches(batches(3), options());
  assert.equal(uploads().length, 2);
  assert.equal(summary.rejected[0]!.status, 401);
  assert.equal(summary.not_sent, 2);
  assert.match(summary.error!, /refused the client \(401/);
  script = [{ status: 403, body: { code: 'insufficient_scope', detail: 'needs upload' } }];
  const forbidden = await uploadBatches(batches(3), options());
  assert.equal(forbidden.not_sent, 2);
  assert.match(forbidden.error!, /needs upload/);
});

test('refused credentials stop the run before anything is sent; a 5xx of the token endpoint is retried', async () => {
  tokenScript = [{ status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } }];
  const refused = await uploadBatches(batches(2), options());
  assert.equal(uploads().length, 0);
  assert.equal(refused.not_sent, 2);
  assert.match(refused.error!, /answered 401: invalid_client: client authentication failed/);
  seen = [];
  tokenScript = [502, 'drop'];
  const ok = await uploadBatches(batches(1), options());
  assert.equal(seen.filter((s) => s.path === '/oauth/token').length, 3);
  assert.equal(ok.created, 2);
});

test('the token is reused until shortly before it expires', async () => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const opts = options({ concurrency: 1 });
  opts.http!.clock = () => new Date(now);
  const several = batches(3);
  // Each batch moves the client's clock on 29 min 45 s: the third batch goes at 59 min 30 s, inside
  // the last minute of the 1-hour token, so it gets a new one.
  opts.onProgress = () => {
    now += 1785_000;
  };
  const summary = await uploadBatches(several, opts);
  assert.deepEqual(uploads().map((u) => u.headers.authorization), ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  assert.equal(summary.tokens, 2);
});

test('a 200 that is not the service\'s answer (a proxy\'s page) is a rejected batch, not stored bets', async () => {
  script = [{ status: 200, body: '<html>maintenance</html>' }, { status: 200, body: { created: 1 } }];
  const summary = await uploadBatches(batches(3), options());
  assert.equal(uploads().length, 3);
  assert.deepEqual(summary.rejected.map((r) => [r.race_number, r.status]), [[1, 200], [2, 200]]);
  assert.match(summary.rejected[0]!.detail, /a 200 that is not the service's answer .*maintenance/);
  assert.equal(summary.created, 2, 'only the third batch counts');
});

test('an answer of an unexpected shape (errors or warnings not a list) is reported, and the run goes on to its summary', async () => {
  script = [
    { status: 400, body: { code: 'bad_request', detail: 'from a gateway', errors: 'not a list' } },
    { status: 422, body: { errors: [null, 'text', { index: 0 }] } },
    { status: 200, body: { created: 2, updated: 0, unchanged: 0, warnings: { code: 'odd' } } },
  ];
  const summary = await uploadBatches(batches(4), options());
  assert.equal(uploads().length, 4);
  assert.deepEqual(summary.rejected.map((r) => [r.race_number, r.status, r.errors]), [
    [1, 400, []],
    [2, 422, [{ index: 0, at: 'line 3' }]],
  ]);
  assert.equal(summary.created, 4);
  assert.deepEqual(summary.warnings, []);
});

test('a rejection whose errors the service capped says how many more there are (errors_omitted)', async () => {
  script = [{ status: 400, body: { code: 'validation_failed', detail: '57 invalid entries', errors: [{ index: 0, field: 'bets/0/amount' }], errors_omitted: 56 } }];
  const summary = await uploadBatches(batches(1), options());
  assert.deepEqual(summary.rejected.map((r) => [r.errors.length, r.errors_omitted]), [[1, 56]]);
});
