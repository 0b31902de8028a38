// The wagerline command line. Every command prints exactly one JSON object on stdout; logs and
// errors go to stderr; every failure is one line and the --help hint, with the exit codes of run.ts
// (2: usage error, 1: refused or failed).
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, type Option } from 'commander';
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
import { describeError, EXIT, exitCodeOf, fail, HELP_HINT, usage, UsageError } from './run.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Help texts (inherited by every subcommand). A command list shows each command's first sentence
 * and arguments, wrapped to the terminal even beside long argument lists (each command's own
 * --help has its whole description and options); a required option says so, which commander
 * otherwise tells only once it is missing, and one an environment variable can supply names it.
 */
const HELP_LAYOUT = {
  minWidthToWrap: 30,
  subcommandTerm(this: Help, command: Command) {
    return Help.prototype.subcommandTerm.call(this, command).replace(' [options]', '');
  },
  subcommandDescription: (command: Command) => firstSentence(command.description()),
  optionDescription(this: Help, option: Option) {
    const text = Help.prototype.optionDescription.call(this, option);
    if (!option.mandatory) return text;
    if (!option.envVar) return `${text} (required)`;
    return `${text.replace(` (env: ${option.envVar})`, '')} (required unless ${option.envVar} is set)`;
  },
};

/** Up to the first full stop that ends a sentence (not one inside "e.g." or a number). */
export function firstSentence(text: string): string {
  const end = /(?<!\be\.g|\bi\.e)\.(?=\s)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

/** A required option given neither way: what commander says, and both ways to give it. */
function notGiven(option: Option, empty: boolean): string {
  const ways = option.envVar ? `: pass ${option.long} or set ${option.envVar}${empty ? ' (it is set but empty)' : ''}` : '';
  return `error: required option '${option.flags}' not specified${ways}`;
}

/**
 * The program's commands (subcommands are made by createCommand): a required option that an
 * environment variable may supply names the variable too when neither gives it.
 */
class WagerlineCommand extends Command {
  override createCommand(name?: string): Command {
    return new WagerlineCommand(name);
  }

  /** Commander's own check of required options calls this (the method its error comes from). */
  missingMandatoryOptionValue(option: Option): void {
    this.error(notGiven(option, false), { code: 'commander.missingMandatoryOptionValue' });
  }
}

/** An empty variable gives nothing (commander takes it as given): a required option it stood for is missing. */
function refuseEmptyVariables(_program: Command, command: Command): void {
  for (const option of command.options) {
    const key = option.attributeName();
    if (option.mandatory && command.getOptionValueSource(key) === 'env' && String(command.getOptionValue(key)).trim() === '') {
      command.error(notGiven(option, true), { code: 'commander.missingMandatoryOptionValue' });
    }
  }
}

export function buildProgram(): Command {
  const program = new WagerlineCommand('wagerline')
    .description('wagerline: reporting upload, operator wallet integration and back-office for wagering operators.\n' +
      'Every command prints one JSON object on stdout and any error as one line on stderr; exit 0: done; 1: refused or failed; ' +
      '2: a usage error (nothing done); wallet-check adds 3 (nothing answers at --url).\n' +
      'Commands that use the database (not upload, wallet-check, dev-jwks or wallet-sandbox --memory) read DATABASE_URL ' +
      '(unset: the embedded PostgreSQL in WAGERLINE_DATA_DIR); see the README for all settings.')
    .version(VERSION, '-V, --version', 'print the version of wagerline')
    .showHelpAfterError(HELP_HINT)
    .configureHelp(HELP_LAYOUT)
    // Commander's own errors (unknown option or command, missing or bad argument) in our format,
    // "wagerline: ..." on one line, and exit 2 like every usage error; --help and --version exit 0.
    // Subcommands inherit both settings.
    .configureOutput({ outputError: (text, write) => write(`wagerline: ${text.replace(/^error: /, '').replace(/ is invalid(.*?)\. /, ' is invalid$1: ').replace(/\s*\n\s*/g, ' ').trim()}\n`) })
    .exitOverride((error: CommanderError) => process.exit(error.exitCode === 0 ? 0 : EXIT.usage));
  program.hook('preAction', refuseEmptyVariables);
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

/** Runs the command line (bin/wagerline); importing this module runs nothing. */
export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram();
  // No command at all: the command list, on stdout, as --help prints it.
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // An action that threw: a usage error found late (a file), else the error in our words.
    if (error instanceof UsageError) usage(error.message);
    fail(describeError(error), exitCodeOf(error));
  }
}
