// Every command of the command line, run with bad arguments: a non-UUID where a UUID is expected,
// a missing required option, a file that does not exist, an unknown option, an unknown
// subcommand. Each must fail with one line in our words ("wagerline: ..."), the --help hint, and
// exit 2 (a usage error); no raw driver or system message may leak. The commands are found by
// walking commander's command tree, so a command added later is covered without touching this file.
// The sweep runs each command in this process (main() with process.exit and the output captured:
// one real process per case would take minutes); a few cases also run the real bin/wagerline.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Argument, Command, Option } from 'commander';
import { buildProgram, main } from '../../src/cli/main.ts';
import { EXIT, HELP_HINT } from '../../src/cli/run.ts';
import { cliEnv, runCli, type CliResult } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';

const UUID = '3f1c2a9e-0000-4000-8000-000000000001';
const MISSING_FILE = 'examples/no-such-file.json';

/** Texts that only a driver, Node or a stack trace would print. */
const LEAKS = [
  /invalid input syntax/i, /ENOENT/, /EACCES/, /EISDIR/, /ECONNREFUSED/, /syntax error at/i, /violates/i,
  /at Object\./, /^\s+at /m, /node:internal/, /TypeError|RangeError|ReferenceError/, /no such file or directory/,
  /duplicate key/i, /relation ".*" does not exist/i, /\.ts:\d+/,
];

/** An argument or option value name that holds a UUID. */
const isUuidName = (name: string) => /(^|_)(tenant|bet|call|user)_id$|^uuid$/i.test(name);

/** A valid-looking value for an argument or option, by its name, so that only the value under test is wrong. */
function plausible(name: string, flag?: string): string {
  const n = name.toLowerCase();
  if (isUuidName(n)) return UUID;
  if (flag === '--tenants') return UUID;
  if (n === 'file' || n === 'path' || flag === '--file') return 'examples/meetings.json';
  if (/meeting_id|race_number|runner|^n$|seconds/.test(n)) return '1';
  if (n === 'status') return 'closed';
  if (n === 'jurisdiction') return 'VIC';
  if (n === 'dollars') return '1.00';
  if (n === 'json') return flag === '--dividends' ? '{}' : '[[1]]';
  if (n.includes('url')) return 'http://127.0.0.1:9';
  if (n === 'list') return 'upload';
  if (n === 'kind') return 'client_credentials';
  if (n === 'mode') return 'custom';
  if (n === 'date') return 'today';
  return 'x';
}

interface Leaf {
  path: string[];
  command: Command;
}

function leaves(command: Command, path: string[] = []): Leaf[] {
  const subs = command.commands.filter((c) => c.name() !== 'help');
  if (subs.length === 0) return [{ path, command }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

const args = (c: Command): readonly Argument[] => c.registeredArguments;
const valueName = (o: Option) => /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? '';
const required = (c: Command) => c.options.filter((o) => o.mandatory);

/** The command's arguments and required options, all plausible, with `change` applied. */
function invocation(leaf: Leaf, change: { arg?: number; argValue?: string; omit?: Option; option?: Option; optionValue?: string } = {}): string[] {
  const out = [...leaf.path];
  args(leaf.command).forEach((a, i) => {
    if (!a.required && i !== change.arg) return;
    out.push(i === change.arg ? change.argValue! : plausible(a.name()));
  });
  for (const o of required(leaf.command)) {
    if (o === change.omit || o === change.option) continue;
    out.push(o.long!, plausible(valueName(o), o.long));
  }
  if (change.option) out.push(change.option.long!, change.optionValue!);
  return out;
}

interface Case {
  name: string;
  argv: string[];
  expect?: RegExp;
}

function cases(): Case[] {
  const program = buildProgram();
  const all: Case[] = [];
  for (const leaf of leaves(program)) {
    const name = leaf.path.join(' ');
    all.push({ name: `${name}: unknown option`, argv: [...invocation(leaf), '--no-such-option'], expect: /unknown option '--no-such-option'/ });
    args(leaf.command).forEach((a, i) => {
      if (isUuidName(a.name())) all.push({ name: `${name}: <${a.name()}> not a UUID`, argv: invocation(leaf, { arg: i, argValue: 'not-a-uuid' }), expect: /not-a-uuid.*UUID/ });
      if (/^(file|path)$/.test(a.name())) all.push({ name: `${name}: <${a.name()}> missing`, argv: invocation(leaf, { arg: i, argValue: MISSING_FILE }), expect: /no-such-file\.json.*no such file/ });
    });
    for (const o of leaf.command.options) {
      if (!o.long || !o.required) continue; // only options that take a value
      if (isUuidName(valueName(o)) || o.long === '--tenants' || valueName(o) === 'uuid') {
        all.push({ name: `${name}: ${o.long} not a UUID`, argv: invocation(leaf, { option: o, optionValue: '123' }), expect: /'123'.*UUID/ });
      }
      if (o.long === '--file') all.push({ name: `${name}: ${o.long} missing`, argv: invocation(leaf, { option: o, optionValue: MISSING_FILE }), expect: /no-such-file\.json.*no such file/ });
    }
    for (const o of required(leaf.command)) {
      all.push({ name: `${name}: without ${o.long}`, argv: invocation(leaf, { omit: o }), expect: new RegExp(`required option '${o.long}`) });
    }
  }
  for (const group of program.commands.filter((c) => c.commands.length > 0)) {
    all.push({ name: `${group.name()}: unknown subcommand`, argv: [group.name(), 'no-such-command'], expect: /unknown command 'no-such-command'/ });
  }
  return all;
}

class Exited extends Error {}

/** Runs the command line in this process, as bin/wagerline would: what it writes until it exits, and its exit code. */
async function runInProcess(argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  let code: number | null = null;
  const saved = { exit: process.exit, out: process.stdout.write, err: process.stderr.write, exitCode: process.exitCode };
  process.exit = ((c?: number) => {
    code ??= c ?? 0;
    throw new Exited();
  }) as typeof process.exit;
  // Once exited, the process would write nothing more.
  process.stdout.write = ((chunk: string) => (code === null && (stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => (code === null && (stderr += chunk), true)) as typeof process.stderr.write;
  try {
    await main(['node', 'wagerline', ...argv]);
  } catch (error) {
    if (!(error instanceof Exited)) throw error;
  } finally {
    code ??= typeof process.exitCode === 'number' ? process.exitCode : 0;
    Object.assign(process, { exit: saved.exit, exitCode: saved.exitCode });
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  }
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

let db: TestDatabase;
let env: Record<string, string>;
before(async () => {
  db = await freshDatabase();
  // No credentials from the environment: --client-id and --client-secret of upload must be missing.
  delete process.env.WAGERLINE_CLIENT_ID;
  delete process.env.WAGERLINE_CLIENT_SECRET;
  env = cliEnv(db.url);
});
after(() => db.drop());

function check(c: Case, res: CliResult): string[] {
  const problems: string[] = [];
  const where = `${c.name} (wagerline ${c.argv.join(' ')})`;
  if (res.code !== EXIT.usage) problems.push(`${where}: exit ${res.code}, expected ${EXIT.usage}\n${res.stderr}`);
  if (res.stdout !== '') problems.push(`${where}: printed on stdout: ${res.stdout}`);
  const lines = res.stderr.split('\n').filter(Boolean);
  if (lines.length !== 2 || !lines[0]!.startsWith('wagerline: ') || lines[1] !== HELP_HINT) {
    problems.push(`${where}: stderr is not one error line and the --help hint:\n${res.stderr}`);
  }
  for (const leak of LEAKS) if (leak.test(res.stderr)) problems.push(`${where}: raw message (${leak}):\n${res.stderr}`);
  if (c.expect && !c.expect.test(res.stderr)) problems.push(`${where}: expected ${c.expect}, got:\n${res.stderr}`);
  return problems;
}

test('every command, given bad arguments, fails with one line in our words and exit 2', { timeout: 240_000 }, async () => {
  const all = cases();
  assert.ok(all.length > 60, `only ${all.length} cases: the command tree walk found too few commands`);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const problems: string[] = [];
  try {
    for (const c of all) problems.push(...check(c, await runInProcess(c.argv)));
  } finally {
    for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key]; else process.env[key] = saved[key];
  }
  assert.deepEqual(problems, [], problems.join('\n\n'));
});

test('the UUID parameters are found: the cases cover tenant, bet and wallet-call ids', () => {
  const names = cases().map((c) => c.name).join('\n');
  for (const expected of ['wallet calls: --bet not a UUID', 'client create: --tenant not a UUID', 'bet show: <bet_id> not a UUID',
    'tenant set-wallet: <tenant_id> not a UUID', 'wallet retry: <call_id> not a UUID', 'meeting import: <file> missing',
    'upload: --file missing', 'tenant create: without --name', 'client create: without --scopes']) {
    assert.ok(names.includes(expected), `no case "${expected}" in:\n${names}`);
  }
});

test('the real command line: the same errors, run in parallel', async () => {
  const real: Case[] = [
    { name: 'wallet calls --bet 123', argv: ['wallet', 'calls', '--bet', '123'], expect: /--bet .*'123' is invalid: must be a UUID/ },
    { name: 'meeting import of a missing file', argv: ['meeting', 'import', MISSING_FILE], expect: /cannot read examples\/no-such-file\.json: no such file/ },
    { name: 'client create --tenant not-a-uuid', argv: ['client', 'create', '--tenant', 'not-a-uuid', '--scopes', 'upload'], expect: /not-a-uuid.*must be a UUID/ },
    { name: 'tenant create without --name', argv: ['tenant', 'create'], expect: /required option '--name/ },
    { name: 'upload without --client-id', argv: ['upload', '--file', 'x', '--api-url', 'http://a', '--auth-url', 'http://a'], expect: /required option '--client-id/ },
    { name: 'unknown option', argv: ['migrate', '--no-such-option'], expect: /unknown option/ },
  ];
  const results = await Promise.all(real.map((c) => runCli(c.argv, env)));
  const problems = real.flatMap((c, i) => check(c, results[i]!));
  assert.deepEqual(problems, [], problems.join('\n\n'));
});

test('a refused operation is one line and exit 1: an unknown tenant, a driver error mapped to our words', async () => {
  const missing = await runCli(['client', 'list', '--tenant', UUID], env);
  // Listing the clients of an unknown tenant: the service's answer, or an empty list.
  if (missing.code !== 0) {
    assert.equal(missing.code, EXIT.refused, missing.stderr);
    for (const leak of LEAKS) assert.doesNotMatch(missing.stderr, leak);
  }
  const unreachable = await runCli(['migrate'], { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' });
  assert.equal(unreachable.code, EXIT.refused, unreachable.stderr);
  assert.match(unreachable.stderr, /^wagerline: cannot reach the database/);
  for (const leak of LEAKS) assert.doesNotMatch(unreachable.stderr, leak);
  const url = new URL(env.DATABASE_URL!);
  url.username = 'no_such_role_here';
  const noRole = await runCli(['migrate'], { ...env, DATABASE_URL: url.toString() });
  assert.equal(noRole.code, EXIT.refused, noRole.stderr);
  assert.match(noRole.stderr, /^wagerline: cannot use the database at DATABASE_URL \(authentication failed, no such role or no such database\)/);
});
