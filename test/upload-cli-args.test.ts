// `wagerline upload`'s arguments as an operator meets them, through the real bin/wagerline: the
// credentials its --help marks required may come from the environment instead, and their absence
// says both ways to give them; a --api-url or --auth-url that is not a URL is quoted without the
// credentials it may carry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HELP_HINT } from '../src/cli/run.ts';
import { runCli } from './helpers/cli.ts';

const credentials = { WAGERLINE_CLIENT_ID: 'uploader', WAGERLINE_CLIENT_SECRET: 'not-this-one' };

test('upload --help: --client-id and --client-secret are required unless their environment variable is set', async () => {
  const res = await runCli(['upload', '--help'], {});
  assert.equal(res.code, 0, res.stderr);
  const help = res.stdout.replace(/\s+/g, ' ');
  assert.match(help, /--client-id <id> client id \(required unless WAGERLINE_CLIENT_ID is set\) --client-secret/);
  assert.match(help, /--client-secret <secret> client secret \(prefer the environment variable: arguments show in ps\) \(required unless WAGERLINE_CLIENT_SECRET is set\) --v1/);
  assert.match(help, /--api-url <url> [^-]*\(required\)/, 'an option without a variable is plainly required');
});

test('an --api-url or --auth-url that is not a URL is quoted with its user info and query values redacted; exit 2', async () => {
  const notUrl = 'htp//ops:s3cret@upload.example?token=k3y';
  const quoted = '"htp//[Redacted]@upload.example?token=[Redacted]"';
  for (const [name, args] of [
    ['--api-url', ['--api-url', notUrl, '--auth-url', 'https://auth.example/oauth/token']],
    ['--auth-url', ['--api-url', 'https://upload.example', '--auth-url', notUrl]],
  ] as const) {
    const res = await runCli(['upload', '--file', 'bets.json', ...args], credentials);
    assert.equal(res.code, 2, res.stderr);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr, `wagerline: ${name} is not a URL: ${quoted}\n${HELP_HINT}\n`);
    assert.doesNotMatch(res.stderr, /s3cret|k3y/);
  }
});

const endpoints = ['--file', 'bets.json', '--api-url', 'https://upload.example', '--auth-url', 'https://auth.example/oauth/token'];
const unset = { WAGERLINE_CLIENT_ID: undefined, WAGERLINE_CLIENT_SECRET: undefined };

test('a credential given neither way names both: the option and its environment variable; exit 2, nothing on stdout', async () => {
  const cases = [
    [['upload', ...endpoints], unset, "'--client-id <id>' not specified: pass --client-id or set WAGERLINE_CLIENT_ID"],
    [['upload', ...endpoints, '--client-id', 'uploader'], unset, "'--client-secret <secret>' not specified: pass --client-secret or set WAGERLINE_CLIENT_SECRET"],
    [['upload', ...endpoints], { ...unset, WAGERLINE_CLIENT_SECRET: 's' }, "'--client-id <id>' not specified: pass --client-id or set WAGERLINE_CLIENT_ID"],
    [['token', '--client-id', 'uploader'], unset, "'--client-secret <secret>' not specified: pass --client-secret or set WAGERLINE_CLIENT_SECRET"],
    [['token', '--client-secret', 's'], unset, "'--client-id <id>' not specified: pass --client-id or set WAGERLINE_CLIENT_ID"],
    // An empty variable gives nothing: said so, rather than sent as an empty credential.
    [['upload', ...endpoints], { ...unset, WAGERLINE_CLIENT_ID: '', WAGERLINE_CLIENT_SECRET: 's' },
      "'--client-id <id>' not specified: pass --client-id or set WAGERLINE_CLIENT_ID (it is set but empty)"],
  ] as const;
  for (const [args, env, missing] of cases) {
    const res = await runCli([...args], env);
    assert.deepEqual([res.code, res.stdout, res.stderr], [2, '', `wagerline: required option ${missing}\n${HELP_HINT}\n`], args.join(' '));
  }
});
