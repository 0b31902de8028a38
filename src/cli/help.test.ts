// The CLI's --help texts as a reader in an 80-column terminal sees them (the width commander uses
// when the output is not a terminal): command lists wrap, required options say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, firstSentence } from './main.ts';

const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
const helpOf = (...path: string[]) => {
  let command = buildProgram();
  for (const name of path) command = command.commands.find((c) => c.name() === name)!;
  return command.helpInformation();
};

test('every --help fits 80 columns, command lists beside long argument lists included', () => {
  const commands = everyCommand(buildProgram());
  assert.ok(commands.length > 40, `only ${commands.length} commands found`);
  for (const command of commands) {
    const wide = command.helpInformation().split('\n').filter((line) => line.length > 80);
    assert.deepEqual(wide, [], `${command.name()} --help`);
  }
});

test('a command list shows each command\'s first sentence and arguments; its own --help the whole description', () => {
  const list = helpOf('race');
  assert.match(list, /^ {2}scratch <meeting_id> <race_number> <runner> +Scratch a runner/m);
  assert.doesNotMatch(list, /Prints/);
  assert.match(helpOf('race', 'scratch'), /Prints \{"meeting_id", "race_number",\s+"runner", "changed", "settlement"\}/);
});

test('required options say so; the others do not', () => {
  const help = helpOf('tenant', 'create');
  assert.match(help, /--name <text> +brand name[^\n]*\(required\)/);
  assert.doesNotMatch(help, /--currency[^\n]*\(required\)/);
  assert.match(helpOf('client', 'create'), /--tenant <tenant_id>[\s\S]*?\(required\)/);
});

test('firstSentence ends at a full stop before a space, not inside "e.g." or a number', () => {
  assert.equal(firstSentence('Set prices (1.01 to 10000). Prints {"changed"}'), 'Set prices (1.01 to 10000).');
  assert.equal(firstSentence('Import a file, e.g. day.json. Prints more'), 'Import a file, e.g. day.json.');
  assert.equal(firstSentence('No full stop here'), 'No full stop here');
});

test('every argument of every command says what it is, and every client command what it prints', () => {
  for (const command of everyCommand(buildProgram())) {
    for (const argument of command.registeredArguments) {
      assert.ok(argument.description, `${command.parent?.name()} ${command.name()} <${argument.name()}> has no description`);
    }
  }
  const client = helpOf('client', 'revoke');
  assert.match(client, /^ {2}client_id +the client's id, as client create printed it/m);
  assert.match(client, /Prints \{"client_id", "status": "revoked"\}/);
});

test('the command list says what every command prints, how it exits, and which commands read DATABASE_URL', () => {
  const root = helpOf().replace(/\s+/g, ' ');
  assert.match(root, /Every command prints one JSON object on stdout and any error as one line on stderr/);
  assert.match(root, /exit 0: done; 1: refused or failed; 2: a usage error \(nothing done\)/);
  assert.match(root, /Commands that use the database \(not upload, wallet-check, dev-jwks or wallet-sandbox --memory\) read DATABASE_URL/);
});

test('what a newcomer would otherwise learn from an error: an upload client needs an agency, race price a price, wallet-check credentials', () => {
  const flat = (...path: string[]) => helpOf(...path).replace(/\s+/g, ' ');
  assert.match(flat('client', 'create'), /--agencies <list> for upload clients, and required with the upload scope: the source codes/);
  assert.match(flat('race', 'price'), /--win, --place or both/);
  assert.match(flat('wallet-check'), /--client-id <id> client id \(required with --auth client_credentials, the default\)/);
  assert.match(flat('wallet-check'), /--user <uuid> [^-]*\(default: a fresh UUID\)/);
});

test('what a command prints names its fields as JSON does, quoted', () => {
  for (const command of everyCommand(buildProgram())) {
    // {"url", "pid"}, {"count": …}: a brace opens on a quoted name, never on a bare word ({url, pid}).
    assert.doesNotMatch(command.description(), /\{(?!["}])/, `${command.name()}: an unquoted field name`);
  }
});
