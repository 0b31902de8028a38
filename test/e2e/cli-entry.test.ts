// The command line's entry: --version, and no command at all prints the command list.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.ts';

const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };

test('--version and -V print the version of package.json', async () => {
  for (const flag of ['--version', '-V']) {
    const res = await runCli([flag], {});
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout, `${pkg.version}\n`);
    assert.equal(res.stderr, '');
  }
});

test('no command: the command list on stdout, exit 0', async () => {
  const res = await runCli([], {});
  assert.equal(res.code, 0, res.stderr);
  assert.equal(res.stderr, '');
  assert.match(res.stdout, /^Usage: wagerline \[options\] \[command\]/);
  for (const command of ['serve', 'migrate', 'tenant', 'client', 'wallet-check', 'upload']) {
    assert.match(res.stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
  }
});
