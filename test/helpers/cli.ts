// Runs the real bin/wagerline as a child process, as an operator would.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BIN = path.resolve(import.meta.dirname, '../../bin/wagerline');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

/** env: added to this process's environment; a variable given as undefined is left out (unset). */
export function runCli(args: string[], env: Record<string, string | undefined>, input?: string | Buffer): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) }));
    child.stdin.end(input ?? '');
  });
}

/** Starts a long-running command (serve, wallet-sandbox) and resolves with its first stdout line. */
export function startCli(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; first: any; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.stdout!.on('data', (d) => {
      stdout += d;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolve({ child, first: JSON.parse(stdout.slice(0, newline)), stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)));
  });
}

const dataDirs: string[] = [];
process.on('exit', () => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A data directory for CLI runs, removed when the test process exits. */
export function cliDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-cli-'));
  dataDirs.push(dir);
  return dir;
}

/** The environment of CLI runs on a test database: a fresh secret key and data directory, quiet logs. */
export function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64'),
    WAGERLINE_DATA_DIR: cliDataDir(),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * The two checks of a CLI test: `ok` runs a command that must succeed with one JSON object on
 * stdout (and returns it); `refused` one that must fail with nothing on stdout and `message` on
 * the first line of stderr. `env` is read at each call (set in a before hook).
 */
export function cliChecks(env: () => Record<string, string>) {
  return {
    async ok(args: string[]) {
      const res = await runCli(args, env());
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
      assert.equal(res.stdout.trim().split('\n').length, 1, 'one JSON object on stdout');
      return res.json();
    },
    async refused(args: string[], message: RegExp) {
      const res = await runCli(args, env());
      assert.notEqual(res.code, 0, args.join(' '));
      assert.equal(res.stdout, '');
      assert.match(res.stderr.split('\n')[0]!, message);
    },
  };
}
