// The README's walk-through (upload, "Place a bet", the settlement) and docs/backoffice.md's "A
// session" after it, run by bash as a reader would paste them, against a real `bin/wagerline serve`:
// every command succeeds and the outputs the documents show (`# → …`) come out, in order.
// What the test changes in the text, and why: the wallet sandbox's and the identity provider's
// ports (9090, 9091) become free ports, so that it runs beside other tests; and it waits up to
// 20 s where the documents wait "a moment" for the wallet worker (`sleep 2`; before "A moment
// later"), so that a loaded machine does not fail it. It runs in a directory of its own, with the
// checkout's bin/ and examples/, where the documents' files (client.json, …) are written.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { cliEnv, startCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/net.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The ```sh blocks of `markdown` between the heading `from` and the next heading of its level. */
export function shellBlocks(markdown: string, from: string): string[] {
  const start = markdown.indexOf(`\n${from}\n`);
  assert.ok(start >= 0, `no heading "${from}"`);
  const level = from.split(' ')[0]!;
  const rest = markdown.slice(start + from.length + 2);
  const end = rest.search(new RegExp(`^${level} `, 'm'));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const [UUID, TIME] = ['\u0001', '\u0002'];

/**
 * The outputs a block shows, as patterns: "# → " and its "#" continuation lines, joined; "…"
 * stands for anything, as do a UUID's elided tail ("0066b399-…") and a time of the author's run.
 */
export function expectedOutputs(block: string): RegExp[] {
  const lines = block.split('\n');
  const found: RegExp[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = /^# → (.*)$/.exec(lines[i]!);
    if (!first) continue;
    let text = first[1]!;
    while (lines[i + 1]?.startsWith('#  ')) text += lines[++i]!.slice(1);
    text = text.trim().replace(/^(.*[}\]…]).*$/, '$1').replace(/([,:{}[\]…])\s+/g, '$1')
      .replace(/[0-9a-f]{8}-…/g, UUID).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, TIME);
    const pattern = text.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*?')
      .replaceAll(UUID, '[0-9a-f-]{36}').replaceAll(TIME, '[0-9T:.Z-]+');
    found.push(new RegExp(pattern));
  }
  return found;
}

/** Waits until `command` prints `pattern` (polled every 200 ms, at most 20 s). */
const waitFor = (command: string, pattern: string) =>
  `for _ in $(seq 100); do ${command} | grep -Eq '${pattern}' && break; sleep 0.2; done`;

function runBash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let db: TestDatabase;
let dir: string;
before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-readme-'));
  for (const linked of ['bin', 'examples']) symlinkSync(path.join(ROOT, linked), path.join(dir, linked));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

/** The documents use bash and curl: a machine without them (only Node and npm) skips this test, saying why. */
const missing = ['bash', 'curl'].filter((tool) => spawnSync(tool, ['--version']).error !== undefined);

test('the README\'s walk-through and the back-office session run as written and print what they show', {
  skip: missing.length > 0 && `${missing.join(' and ')} not installed`,
}, async () => {
  const readme = shellBlocks(read('README.md'), '## Quick start').filter((b) => !/^npm (start|test)\n$/.test(b));
  const backoffice = shellBlocks(read('docs/backoffice.md'), '## A session');
  assert.equal(readme.length, 4, 'the README\'s blocks: the operator\'s setup, the upload, Place a bet, the settlement');
  assert.equal(backoffice.length, 3, 'the session\'s blocks: three bets, the integrator\'s side, the delivered refund');
  const [sandboxPort, jwksPort] = [await freePort(), await freePort()];
  const ports = (text: string) => text.replaceAll('9090', String(sandboxPort)).replaceAll('9091', String(jwksPort));
  const balance = `curl -s "http://127.0.0.1:9090/balances/$USER_ID" -H "Authorization: Bearer $SANDBOX"`;
  const settled = readme[3]!.replace(/^sleep 2$/m, waitFor(balance, '"cash":"1025.00"'));
  assert.notEqual(settled, readme[3], 'the settlement block no longer waits with "sleep 2"');
  const refunded = waitFor(`./bin/wagerline bet show "$TENANT" "$BET"`, '"op":"refundBet"[^}]*"status":"delivered"');
  const blocks = [readme[0]!, readme[1]!, readme[2]!, settled, backoffice[0]!, backoffice[1]!, refunded, backoffice[2]!];
  const script = ['set -u', 'trap \'kill ${SANDBOX_PID:-} ${JWKS_PID:-} 2>/dev/null\' EXIT', ...blocks.map(ports)].join('\n');

  const env = cliEnv(db.url, { PORT: '0' });
  const serve = await startCli(['serve'], env);
  try {
    const port = new URL(serve.first.url).port;
    const run = await runBash(script, dir, { ...env, PORT: port });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /^wagerline: /m, 'a command failed');
    assert.doesNotMatch(run.stdout, /"errors":/, 'a GraphQL request was refused');
    assert.equal(run.stdout.match(/"warnings":/g)?.length, 1, 'the upload printed its summary');
    assert.equal(JSON.parse(run.stdout.split('\n').find((l) => l.includes('"batches"'))!).warnings.length, 5, 'the README\'s 5 warnings');
    let from = 0;
    for (const expected of [...readme, ...backoffice].flatMap(expectedOutputs)) {
      const match = expected.exec(run.stdout.slice(from));
      assert.ok(match, `not printed (after what came before): ${expected.source}\n--- stdout:\n${run.stdout}`);
      from += match.index + match[0].length;
    }
  } finally {
    serve.child.kill('SIGTERM');
  }
});
