// `wagerline wallet-check`: the conformance checker (docs/wallet-check.md). A table on stderr, one
// JSON object on stdout, exit 0 only when every check passes; 3 when nothing answers at the URL.
import { accessSync, constants, existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { runWalletCheck, WalletUnreachable, type CheckAuth } from '../../tools/wallet-check/index.ts';
import { html, markdown, table } from '../../tools/wallet-check/report.ts';
import { emit, fail, uuid } from '../run.ts';
import { AppError } from '../../errors.ts';
import { checkWalletUrl } from '../../modules/wallet/config/wallet-config.service.ts';

interface Opts {
  url: string; auth: 'client_credentials' | 'api_key'; clientId?: string; clientSecret?: string; apiKey?: string;
  apiKeyHeader: string; user?: string; amountUnit: 'dollars' | 'cents'; timeoutMs: number; report?: string;
  signingSecret?: string;
}

/** Exit code when nothing answers at --url (docs/wallet-check.md). */
const UNREACHABLE_EXIT = 3;

/** The longest delay a Node.js timer holds (2^31 − 1 ms); beyond it a timer fires at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** `tenant set-wallet`'s URL rules (checkWalletUrl); a breach is a usage error. */
function checkUrl(raw: string): void {
  try {
    checkWalletUrl(raw);
  } catch (error) {
    if (error instanceof AppError) fail(error.message, 2);
    throw error;
  }
}

function reportFormat(path: string): 'html' | 'md' {
  if (/\.html?$/i.test(path)) return 'html';
  if (/\.(md|markdown)$/i.test(path)) return 'md';
  return fail(`--report must name a .html or .md file, got "${path}"`, 2);
}

/** Before any check runs (they move money): the report's file can be written where it is named. */
function checkWritable(path: string): void {
  try {
    if (existsSync(path)) accessSync(path, constants.W_OK);
    else accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    fail(`--report ${path} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'}): name a file in a writable folder`, 2);
  }
}

async function run(opts: Opts): Promise<void> {
  checkUrl(opts.url);
  let auth: CheckAuth;
  if (opts.auth === 'api_key') {
    if (!opts.apiKey) fail('--auth api_key needs --api-key', 2);
    auth = { kind: 'api_key', apiKey: opts.apiKey, header: opts.apiKeyHeader };
  } else {
    if (!opts.clientId || !opts.clientSecret) fail('--auth client_credentials needs --client-id and --client-secret', 2);
    auth = { kind: 'client_credentials', clientId: opts.clientId, clientSecret: opts.clientSecret };
  }
  const format = opts.report ? reportFormat(opts.report) : undefined;
  if (opts.report) checkWritable(opts.report);
  let report: Awaited<ReturnType<typeof runWalletCheck>>;
  try {
    report = await runWalletCheck({ url: opts.url, auth, userId: opts.user, amountUnit: opts.amountUnit, timeoutMs: opts.timeoutMs,
      signingSecret: opts.signingSecret });
  } catch (error) {
    if (error instanceof WalletUnreachable) return fail(error.message, UNREACHABLE_EXIT);
    throw error;
  }
  process.stderr.write(`${table(report)}\n`);
  if (opts.report) {
    writeFileSync(opts.report, format === 'html' ? html(report) : markdown(report));
  }
  const { userId, amountUnit, startedAt, ...rest } = report;
  // Printed in snake_case, as every command prints.
  emit({ ...rest, user_id: userId, amount_unit: amountUnit, started_at: startedAt, ...(opts.report ? { report: opts.report } : {}) });
  process.exitCode = report.failed ? 1 : 0;
}

export function registerWalletCheckCommand(program: Command): void {
  program
    .command('wallet-check')
    .description('Check an operator wallet against the wallet interface of docs/wallet.md (docs/wallet-check.md). Table on stderr, {"passed", "failed", "checks", ...} on stdout; exit 0 only if all pass, 1 if one fails, 2 on a usage error, 3 when nothing answers at --url')
    .requiredOption('--url <wallet_url>', 'base URL of the wallet (the paths /auth/token, /reserve, ... are appended)')
    .addOption(new Option('--auth <kind>', 'how to authenticate').choices(['client_credentials', 'api_key']).default('client_credentials'))
    .option('--client-id <id>', 'client id (required with --auth client_credentials, the default)')
    .option('--client-secret <secret>', 'client secret (required with --auth client_credentials, the default)')
    .option('--api-key <key>', 'the key (required with --auth api_key)')
    .option('--api-key-header <name>', 'api_key: the header carrying the key', 'x-api-key')
    .option('--user <uuid>', 'the test user to make calls for (needs 10.00 cash; the run leaves it 30.70 cash and 4.00 bonus up) (default: a fresh UUID)', uuid)
    .addOption(new Option('--amount-unit <unit>', 'wire unit of amounts').choices(['dollars', 'cents']).default('dollars'))
    .option('--timeout-ms <n>', 'bound on every call (wagerline\'s own bound: 10 s)', (raw: string) => {
      if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new InvalidArgumentError('must be a positive whole number');
      if (Number(raw) > MAX_TIMEOUT_MS) throw new InvalidArgumentError(`must be at most ${MAX_TIMEOUT_MS} (about 24.8 days, the longest a timer holds)`);
      return Number(raw);
    }, 10_000)
    .option('--report <file>', 'also write a shareable report (.html or .md)')
    .option('--signing-secret <secret>', 'sign every transaction call (X-Wagerline-Timestamp, X-Wagerline-Signature), for a wallet that requires it')
    .action((opts: Opts) => run(opts));
}
