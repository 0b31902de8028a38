// Upload bodies and bets files are UTF-8, strictly: an invalid byte is refused, never decoded to
// U+FFFD (two bet ids differing only in such a byte would become one bet, the second replacing the
// first), and a body declared in another charset is a 415. The service (the upload routes' own
// JSON parser) and the upload client (before anything is sent) both hold to it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { firstInvalidUtf8Byte } from '../src/racing/values.ts';
import { decodeBetsFile } from '../src/tools/uploader/read-bets.ts';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';

let ctx: TestContext;
let auth: Record<string, string>;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wagerline-encoding-'));
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  auth = (await seedClient(ctx, { agencies: ['TAB'] })).auth;
});
after(async () => {
  await ctx.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The JSON text as bytes, with every "@" replaced by the raw byte given (not valid UTF-8 on its own). */
function bytes(json: string, raw: number): Buffer {
  const b = Buffer.from(json, 'utf8');
  for (let i = 0; i < b.length; i++) if (b[i] === 0x40) b[i] = raw;
  return b;
}

function send(payload: Buffer | string, contentType = 'application/json', url = '/public/uploadRaceV2') {
  return ctx.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...auth } });
}

async function stored(meetingId: number): Promise<Array<{ bet_id: string; user_name: string | null }>> {
  const { rows } = await ctx.db.pool.query('SELECT bet_id, user_name FROM reported_bets WHERE meeting_id = $1 ORDER BY bet_id', [meetingId]);
  return rows;
}

test('two bets whose ids differ only in a non-UTF-8 byte: both bodies refused (400 malformed_json), nothing stored', async () => {
  const json = JSON.stringify({ meeting_id: 71, race_number: 1, bets: [buildBet({ id: 'X-@', amount: 10, payout: 0, net_result: 10 })] });
  for (const raw of [0xff, 0xfe]) {
    const res = await send(bytes(json, raw));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'malformed_json');
    const offset = Buffer.from(json).indexOf('@');
    assert.match(res.json().detail, new RegExp(`not valid UTF-8: byte 0x${raw.toString(16).toUpperCase()} at offset ${offset}`));
  }
  assert.deepEqual(await stored(71), []);
});

test('on V1 too; a truncated sequence, an overlong form and an encoded surrogate are invalid UTF-8 as well', async () => {
  const json = JSON.stringify({ meeting_id: 73, race_number: 1, bets: [buildBet({ id: 7301, user_name: 'A@' })] });
  const res = await send(bytes(json, 0xc3), 'application/json', '/public/uploadRace');
  assert.deepEqual([res.statusCode, res.json().code], [400, 'malformed_json'], res.body);
  for (const [sequence, at] of [[[0x41, 0xc3], 1], [[0xc0, 0xaf], 0], [[0xed, 0xa0, 0x80], 0], [[0xf4, 0x90, 0x80, 0x80], 0]] as const) {
    assert.equal(firstInvalidUtf8Byte(Uint8Array.from(sequence)), at, sequence.join(','));
  }
  assert.equal(firstInvalidUtf8Byte(Buffer.from('Renée 🏇', 'utf8')), Buffer.byteLength('Renée 🏇'));
  assert.deepEqual(await stored(73), []);
});

test('a body declared charset=iso-8859-1 is a 415 naming the charset, refused before it is read', async () => {
  const json = JSON.stringify({ meeting_id: 72, race_number: 1, bets: [buildBet({ id: 'L-1', user_name: 'Ren@e' })] });
  for (const type of ['application/json; charset=iso-8859-1', 'application/json;charset="latin1"', 'application/json; charset=utf-16']) {
    const res = await send(bytes(json, 0xe9), type);
    assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
    assert.equal(res.json().code, 'unsupported_media_type');
    assert.match(res.json().detail, /must be UTF-8 JSON: Content-Type charset "[a-z0-9-]+" is not accepted/);
  }
  assert.deepEqual(await stored(72), []);
});

test('UTF-8 however it is declared (or not), with or without a byte-order mark, is stored exactly', async () => {
  const body = (id: string) => JSON.stringify({ meeting_id: 74, race_number: 1, bets: [buildBet({ id, user_name: 'Renée 🏇' })] });
  for (const [id, type, prefix] of [['U-1', 'application/json', ''], ['U-2', 'application/json; charset=UTF-8', ''],
    ['U-3', 'application/json; charset="utf-8"', ''], ['U-4', 'application/json', '\uFEFF']] as const) {
    const res = await send(Buffer.from(prefix + body(id), 'utf8'), type);
    assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
  }
  assert.deepEqual((await stored(74)).map((r) => r.user_name), Array(4).fill('Renée 🏇'));
});

test('what Fastify\'s parser refused is still refused: __proto__, constructor.prototype, an empty body, broken JSON', async () => {
  const bet = JSON.stringify(buildBet({ id: 'P-1' }));
  for (const payload of [
    `{"meeting_id":75,"race_number":1,"bets":[${bet.slice(0, -1)},"__proto__":{"x":1}}]}`,
    `{"meeting_id":75,"race_number":1,"bets":[${bet.slice(0, -1)},"constructor":{"prototype":{"x":1}}}]}`,
    '', '  ', '{"meeting_id": 75,',
  ]) {
    const res = await send(payload);
    assert.deepEqual([res.statusCode, res.json().code], [400, 'malformed_json'], `${payload.slice(-40)}: ${res.body}`);
  }
  assert.deepEqual(await stored(75), []);
});

test('other routes keep Fastify\'s own JSON parser', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', payload: '{"grant_type":', headers: { 'content-type': 'application/json' } });
  assert.equal(res.statusCode, 400);
});

test('the upload client refuses a file or standard input that is not UTF-8: exit 2, the file and the line named, nothing sent', async () => {
  const file = path.join(tmp, 'latin1.csv');
  const csv = 'meeting_id,race_number,id,time,type,runner_number,user_id,status,amount\n'
    + '76,1,E-1,2024-05-01T13:00:00+10:00,win,3,u1,Paid,10\n76,1,E-@,2024-05-01T13:00:00+10:00,win,3,u1,Paid,10\n';
  writeFileSync(file, bytes(csv, 0xe9));
  const args = ['upload', '--api-url', 'http://127.0.0.1:9', '--auth-url', 'http://127.0.0.1:9'];
  const env = { WAGERLINE_CLIENT_ID: 'c', WAGERLINE_CLIENT_SECRET: 's' };
  const fromFile = await runCli([...args, '--file', file], env);
  assert.equal(fromFile.code, 2, fromFile.stderr);
  assert.equal(fromFile.stdout, '');
  assert.match(fromFile.stderr, new RegExp(`${file.replaceAll('\\', '\\\\')}: nothing was sent: the file is not UTF-8: byte 0xE9 on line 3`));
  const fromStdin = await runCli([...args, '--file', '-', '--format', 'csv'], env, bytes(csv, 0xe9));
  assert.equal(fromStdin.code, 2, fromStdin.stderr);
  assert.match(fromStdin.stderr, /standard input: nothing was sent: the file is not UTF-8: byte 0xE9 on line 3/);
  assert.equal(decodeBetsFile(Buffer.from('\uFEFFmeeting_id\n', 'utf8')), 'meeting_id\n', 'a byte-order mark is dropped');
  assert.deepEqual(await stored(76), []);
});
