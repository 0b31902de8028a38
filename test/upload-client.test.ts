// The upload client (library and `wagerline upload`) against a real running wagerline service on
// 127.0.0.1: real token endpoint, real upload endpoints, real PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { toBatches } from '../src/tools/uploader/batches.ts';
import { readBets } from '../src/tools/uploader/read-bets.ts';
import { uploadBatches } from '../src/tools/uploader/uploader.ts';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';

const examples = path.resolve(import.meta.dirname, '../examples');
let ctx: TestContext;
let base: string;
let operator: Awaited<ReturnType<typeof seedClient>>;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wagerline-upload-'));

before(async () => {
  ctx = await createTestApp();
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  operator = await seedClient(ctx, { agencies: ['TAB'] });
});
after(async () => {
  await ctx.close();
  rmSync(tmp, { recursive: true, force: true });
});

function env(client = operator.client) {
  return { WAGERLINE_CLIENT_ID: client.client_id, WAGERLINE_CLIENT_SECRET: client.client_secret };
}

async function stored(meetingId: number, raceNumber: number): Promise<Record<string, unknown>[]> {
  const res = await ctx.app.inject({ url: `/public/bets?meeting_id=${meetingId}&race_number=${raceNumber}&limit=1000`, headers: operator.auth });
  return res.json().bets;
}

test('the library uploads 2,500 bets of two races in 1,000-bet batches with one token; again: all unchanged', async () => {
  const lines = [];
  for (let i = 0; i < 2500; i++) lines.push(JSON.stringify({ meeting_id: '4400', race_number: i < 2100 ? 1 : 2, ...buildBet({ id: `L-${i}` }) }));
  const batches = toBatches(readBets(lines.join('\n'), 'ndjson', 2));
  const opts = { apiUrl: base, authUrl: base, clientId: operator.client.client_id, clientSecret: operator.client.client_secret, version: 2 as const };
  const first = await uploadBatches(batches, opts);
  assert.deepEqual([first.batches, first.bets, first.created, first.updated, first.unchanged, first.tokens], [4, 2500, 2500, 0, 0, 1]);
  assert.deepEqual(first.rejected, []);
  assert.equal((await stored(4400, 2)).length, 400);
  const again = await uploadBatches(batches, opts);
  assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 2500]);
});

test('wagerline upload sends the sample CSV (secrets from the environment) and prints one JSON summary', async () => {
  const res = await runCli(['upload', '--file', path.join(examples, 'bets-sample.csv'), '--api-url', base, '--auth-url', `${base}/oauth/token`], env());
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stderr, '', 'no progress bar when standard error is not a terminal (src/cli/progress.test.ts: when it is)');
  const summary = res.json();
  assert.deepEqual([summary.batches, summary.bets, summary.created, summary.rejected], [2, 7, 7, []]);
  // The 2024 sample races are long past their deadline: accepted and flagged (spec 8).
  assert.ok(summary.warnings.some((w: { code: string; meeting_id: number }) => w.code === 'late_upload' && w.meeting_id === 1234567));
  const race7 = await stored(1234567, 7);
  const multiLeg2 = race7.find((b) => b.id === 'C-200101')!;
  assert.equal(multiLeg2.leg, 2);
  assert.equal(race7.find((b) => b.id === 'C-200103')!.exotics_selection, '1,2,3,8(BOXED)');
});

test('wagerline upload --date today replays the 2024 sample today: the bets move by whole days and arrive on time', async () => {
  const other = await seedClient(ctx, { agencies: ['TAB'] }); // a tenant of its own: the 2024 copies stay apart
  const today = new Date().toISOString().slice(0, 10);
  const res = await runCli(['upload', '--file', path.join(examples, 'bets-sample.ndjson'), '--date', 'today', '--api-url', base, '--auth-url', base], env(other.client));
  assert.equal(res.code, 0, res.stderr);
  const summary = res.json();
  assert.deepEqual(summary.rejected, []);
  assert.deepEqual(summary.warnings.filter((w: { code: string }) => w.code === 'late_upload'), [], 'nothing late');
  const res7 = await ctx.app.inject({ url: '/public/bets?meeting_id=1234567&race_number=7&limit=1000', headers: other.auth });
  const times = (res7.json().bets as Array<{ time: string }>).map((b) => b.time);
  assert.ok(times.length > 0 && times.every((t) => new Date(t).toISOString().slice(0, 10) >= new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10)), times.join(', '));
  const refused = await runCli(['upload', '--file', path.join(examples, 'bets-sample.ndjson'), '--date', '2024-02-30', '--api-url', base, '--auth-url', base], env(other.client));
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--date.*must be "today" or a date YYYY-MM-DD/);
});

test('wagerline upload --v1 sends NDJSON from stdin to /public/uploadRace', async () => {
  const ndjson = [1, 2].map((n) => JSON.stringify({ meeting_id: 4401, race_number: 3, ...buildBet({ id: String(9000 + n) }) })).join('\n');
  const res = await runCli(['upload', '--file', '-', '--v1', '--api-url', base, '--auth-url', base], env(), ndjson);
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.json().created, 2);
  const bets = await stored(4401, 3);
  assert.deepEqual(bets.map((b) => b.id), ['9001', '9002']);
});

test('a rejected batch: exit 1, the reasons and the file rows in the summary, the other races stored', async () => {
  const file = path.join(tmp, 'mixed.json');
  writeFileSync(file, JSON.stringify([
    { meeting_id: 4402, race_number: 1, bets: [buildBet({ id: 'ok-1' })] },
    { meeting_id: 4402, race_number: 2, bets: [buildBet({ id: 'ok-2' }), buildBet({ id: 'bad-1', type: 'trifecta', runner_number: undefined, exotics_selection: '1/2' })] },
  ]));
  const res = await runCli(['upload', '--file', file, '--api-url', base, '--auth-url', base], env());
  assert.equal(res.code, 1);
  const summary = res.json();
  assert.equal(summary.created, 1);
  assert.equal(summary.rejected.length, 1);
  const [rejected] = summary.rejected;
  assert.deepEqual([rejected.meeting_id, rejected.race_number, rejected.status, rejected.code], [4402, 2, 400, 'validation_failed']);
  assert.equal(rejected.errors[0].at, '[1].bets[1]');
  assert.equal(rejected.errors[0].field, 'bets/1/exotics_selection');
  assert.equal((await stored(4402, 2)).length, 0);
});

test('a payout of 1e400 is never sent as null (no payout): a CSV\'s is refused by the service, a JSON file by the client (exit 2)', async () => {
  const csv = 'meeting_id,race_number,id,time,type,runner_number,user_id,status,amount,payout\n'
    + '5100,1,OV-CSV,2024-05-01T13:00:00+10:00,win,3,u1,Paid,10,1e400\n';
  const opts = { apiUrl: base, authUrl: base, clientId: operator.client.client_id, clientSecret: operator.client.client_secret, version: 2 as const };
  const summary = await uploadBatches(toBatches(readBets(csv, 'csv', 2)), opts);
  assert.equal(summary.rejected.length, 1, JSON.stringify(summary));
  assert.deepEqual(summary.rejected[0]!.errors!.map((e) => [e.at, e.field, e.message]), [['row 2', 'bets/0/payout', 'must be a finite JSON number']]);
  const file = path.join(tmp, 'overflow.json');
  writeFileSync(file, '[{"meeting_id":5101,"race_number":1,"id":"OV-JSON","time":"2024-05-01T13:00:00+10:00","type":"win",'
    + '"runner_number":3,"user_id":"u1","status":"Paid","amount":10,"payout":1e400}]');
  const res = await runCli(['upload', '--file', file, '--api-url', base, '--auth-url', base], env());
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /overflow\.json: nothing was sent: \[0\]: payout is a number beyond a double's range/);
  assert.deepEqual([...await stored(5100, 1), ...await stored(5101, 1)], []);
});

test('wrong credentials: exit 1, nothing sent, the token endpoint\'s reason printed', async () => {
  const res = await runCli(['upload', '--file', path.join(examples, 'bets-sample.ndjson'), '--api-url', base, '--auth-url', base],
    { WAGERLINE_CLIENT_ID: operator.client.client_id, WAGERLINE_CLIENT_SECRET: 'wrong' });
  assert.equal(res.code, 1);
  const summary = res.json();
  assert.equal(summary.not_sent, 3);
  assert.match(summary.error, /401: invalid_client/);
});

test('a client without scope upload: the run stops at the first 403', async () => {
  const reporter = await seedClient(ctx, { scopes: ['report'] });
  const res = await runCli(['upload', '--file', path.join(examples, 'bets-sample.ndjson'), '--api-url', base, '--auth-url', base], env(reporter.client));
  assert.equal(res.code, 1);
  assert.match(res.json().error, /403 insufficient_scope/);
});

test('a tenant whose time zone the database does not know: the run stops at the first 409 tenant_misconfigured, naming the fix', async () => {
  // Stored as before creation checked zones: a name retired from tzdata that Node still takes.
  const { rows } = await ctx.db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ('Regina Bet', 'AUD', 'Canada/East-Saskatchewan') RETURNING tenant_id");
  const misconfigured = await seedClient(ctx, { tenantId: rows[0]!.tenant_id, agencies: ['TAB'] });
  const res = await runCli(['upload', '--file', path.join(examples, 'bets-sample.ndjson'), '--concurrency', '1', '--api-url', base, '--auth-url', base],
    env(misconfigured.client));
  assert.equal(res.code, 1, res.stderr);
  const summary = res.json();
  assert.match(summary.error, /^the service refused the tenant \(409 tenant_misconfigured\): .*wagerline tenant set-zone [0-9a-f-]+ America\/Regina/);
  assert.deepEqual([summary.rejected.length, summary.rejected[0].code, summary.not_sent], [1, 'tenant_misconfigured', summary.batches - 1]);
});

test('bad arguments or file: exit 2, one line on stderr, nothing on stdout', async () => {
  const missing = path.join(tmp, 'missing.csv');
  writeFileSync(missing, 'meeting_id,id\n1,a\n');
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--file', missing, '--api-url', base, '--auth-url', base], env(), /row 2: race_number is missing/],
    [['--file', path.join(tmp, 'nope.json'), '--api-url', base, '--auth-url', base], env(), /cannot read/],
    [['--file', missing, '--api-url', 'ftp://x', '--auth-url', base], env(), /--api-url must be an http/],
    [['--file', missing, '--api-url', base, '--auth-url', base, '--batch-size', '1001'], env(), /batch-size.*1 to 1000/],
    [['--file', missing, '--api-url', base, '--auth-url', base], {}, /client-id/],
  ];
  for (const [args, vars, pattern] of cases) {
    const res = await runCli(['upload', ...args], vars);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, pattern);
  }
});

test('a CSV with races interleaved, a BOM, CRLF, a blank line and quoted commas: each bet stored once; a thousands separator rejects its race at its row', async () => {
  const head = 'meeting_id,race_number,source,id,time,type,runner_number,exotics_selection,user_id,status,amount,price,payout,net_result';
  const row = (race: number, id: string, amount = '10', type = 'win,4,,') => `4403,${race},TAB,${id},2024-05-01T13:45:12+10:00,${type}u-1,Paid,${amount},,0,${amount}`;
  const lines = [head, row(1, 'x-1'), row(2, 'y-1'), '', row(1, 'x-2', '10', 'trifecta,,"1, 2, 3 (boxed)",'), row(2, 'y-2', '"1,000.50"'), row(1, 'x-3')];
  const file = path.join(tmp, 'interleaved.csv');
  writeFileSync(file, `\ufeff${lines.join('\r\n')}\r\n`);
  const res = await runCli(['upload', '--file', file, '--api-url', base, '--auth-url', base], env());
  assert.equal(res.code, 1, res.stderr);
  const summary = res.json();
  assert.deepEqual([summary.batches, summary.bets, summary.created], [2, 5, 3], JSON.stringify(summary));
  assert.deepEqual(summary.rejected.map((r: { race_number: number; errors: Array<{ at: string; field: string }> }) =>
    [r.race_number, r.errors[0]!.at, r.errors[0]!.field]), [[2, 'row 6', 'bets/1/amount']]);
  assert.deepEqual((await stored(4403, 1)).map((b) => [b.id, b.exotics_selection ?? null]), [['x-1', null], ['x-2', '1,2,3(BOXED)'], ['x-3', null]]);
  assert.equal((await stored(4403, 2)).length, 0);
});
