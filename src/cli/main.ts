// The wagerline command line. Every command prints exactly one JSON object on stdout; logs and
// errors go to stderr; a bad argument is a one-line error and a non-zero exit.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerCatalogCommands } from './commands/catalog.ts';
import { registerBetCommands, registerBettingCommands } from './commands/betting.ts';
import { registerCoreCommands } from './commands/core.ts';
import { registerMeetingCommands } from './commands/meetings.ts';
import { registerTenantCommands } from './commands/tenants.ts';
import { registerUploadCommand } from './commands/upload.ts';
import { registerUserAuthCommands } from './commands/user-auth.ts';
import { registerWalletCommands } from './commands/wallet.ts';
import { registerWalletCheckCommand } from './commands/wallet-check.ts';
import { registerWalletSandboxCommand } from './commands/wallet-sandbox.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export function buildProgram(): Command {
  const program = new Command('wagerline')
    .description('wagerline: reporting upload, operator wallet integration and back-office for wagering operators.\n' +
      'Reads DATABASE_URL (unset: the embedded PostgreSQL in WAGERLINE_DATA_DIR); see the README for all settings.')
    .version(VERSION, '-V, --version', 'print the version of wagerline')
    .showHelpAfterError('(run with --help for usage)');
  registerCoreCommands(program);
  registerMeetingCommands(program);
  registerCatalogCommands(program);
  const tenant = registerTenantCommands(program);
  registerWalletCommands(program, tenant);
  registerUserAuthCommands(program, tenant);
  registerBettingCommands(tenant);
  registerBetCommands(program);
  registerWalletSandboxCommand(program);
  registerWalletCheckCommand(program);
  registerUploadCommand(program);
  return program;
}

const program = buildProgram();
// No command at all: the command list, on stdout, as --help prints it.
if (process.argv.length <= 2) program.outputHelp();
else await program.parseAsync(process.argv);
