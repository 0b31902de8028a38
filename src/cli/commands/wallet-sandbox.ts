// `wagerline wallet-sandbox`: the reference wallet (docs/wallet-sandbox.md) as a long-running
// server. Prints one JSON line with its URL and credentials when ready; stops on SIGINT/SIGTERM.
import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { openDatabase, type Database } from '../../db/database.ts';
import { createLogger } from '../../log.ts';
import { parseDollars } from '../../racing/money.ts';
import { BREAK_MODES, SCHEMA_NAME, startWalletSandbox, type BreakMode, type SandboxAuth } from '../../tools/wallet-sandbox/index.ts';
import { config, describeError, emit, fail } from '../run.ts';
import { isUuid } from '../../racing/values.ts';

interface Opts {
  host: string; port: number; auth: 'client_credentials' | 'api_key'; clientId?: string; clientSecret?: string;
  apiKey?: string; apiKeyHeader: string; openingBalance: string; openingBonus: string; latencyMs: number;
  failRate: number; break: BreakMode[]; slowMs: number; memory?: boolean; amountUnit: 'dollars' | 'cents'; schema: string;
  seed: Seed[]; signingSecret?: string;
}

interface Seed {
  userId: string;
  cash: string;
  bonus?: string;
}

/** --seed <userId>=<cash>[:<bonus>], repeatable: a user who starts with these balances (dollars). */
function seed(raw: string, previous: Seed[] = []): Seed[] {
  const match = /^([^=]+)=(\d+(?:\.\d{1,2})?)(?::(\d+(?:\.\d{1,2})?))?$/.exec(raw.trim());
  if (!match || !isUuid(match[1]!)) throw new InvalidArgumentError('must be <user uuid>=<cash>[:<bonus>], amounts in dollars, e.g. 6f1c7a52-…=50.00:10');
  return [...previous, { userId: match[1]!, cash: match[2]!, ...(match[3] !== undefined && { bonus: match[3] }) }];
}

function int(name: string, min: number, max: number) {
  return (raw: string) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return Number(raw);
  };
}

function rate(raw: string): number {
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || value > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return value;
}

function amount(raw: string): string {
  if (raw.trim() !== raw || parseDollars(raw) === undefined) throw new InvalidArgumentError('must be an amount in dollars with at most two decimals');
  return raw;
}

function breaks(raw: string, previous: BreakMode[] = []): BreakMode[] {
  const modes = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const mode of modes) {
    if (!(BREAK_MODES as readonly string[]).includes(mode)) throw new InvalidArgumentError(`unknown break mode "${mode}"; one of ${BREAK_MODES.join(', ')}`);
  }
  return [...previous, ...(modes as BreakMode[])];
}

async function run(opts: Opts): Promise<void> {
  const secret = () => randomBytes(18).toString('base64url');
  const auth: SandboxAuth = opts.auth === 'api_key'
    ? { kind: 'api_key', apiKey: opts.apiKey ?? secret(), header: opts.apiKeyHeader }
    : { kind: 'client_credentials', clientId: opts.clientId ?? 'wallet-sandbox', clientSecret: opts.clientSecret ?? secret() };
  let database: Database | undefined;
  try {
    if (!opts.memory) {
      const cfg = config();
      database = await openDatabase(cfg, createLogger(cfg.LOG_LEVEL));
    }
    const sandbox = await startWalletSandbox({
      host: opts.host, port: opts.port, auth, amountUnit: opts.amountUnit, openingBalance: opts.openingBalance,
      openingBonus: opts.openingBonus, latencyMs: opts.latencyMs, failRate: opts.failRate, breaks: opts.break, slowMs: opts.slowMs,
      ...(opts.signingSecret !== undefined && { signingSecret: opts.signingSecret }),
      store: database ? { kind: 'postgres', pool: database.pool, schema: opts.schema } : { kind: 'memory' },
    });
    // Seeding overwrites the balances of a user the persistent store already knows.
    for (const s of opts.seed) await sandbox.seedUser(s.userId, { cash: s.cash, ...(s.bonus !== undefined && { bonus: s.bonus }) });
    const stop = () => {
      sandbox.close().then(() => database?.close()).then(() => process.exit(0), () => process.exit(1));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    emit({
      url: sandbox.url,
      auth: auth.kind,
      ...(auth.kind === 'api_key'
        ? { api_key: auth.apiKey, api_key_header: auth.header }
        : { client_id: auth.clientId, client_secret: auth.clientSecret }),
      store: database ? 'postgres' : 'memory',
      ...(database ? { schema: opts.schema } : {}),
      amount_unit: opts.amountUnit,
      opening_balance: opts.openingBalance,
      opening_bonus: opts.openingBonus,
      breaks: opts.break,
      ...(opts.seed.length ? { seeded: opts.seed.map((s) => s.userId.toLowerCase()) } : {}),
      pid: process.pid,
    });
  } catch (error) {
    await database?.close().catch(() => undefined);
    fail(describeError(error));
  }
}

/** The store's rule, checked here so that a bad name is a usage error. */
function schemaName(value: string): string {
  if (!SCHEMA_NAME.test(value)) throw new InvalidArgumentError('must be lower-case letters, digits and _, starting with a letter or _ (at most 63)');
  return value;
}

export function registerWalletSandboxCommand(program: Command): void {
  program
    .command('wallet-sandbox')
    .description('Run the reference operator wallet (docs/wallet.md) on --host and --port (127.0.0.1:9090 unless given). Prints one JSON line {"url", "auth", its credentials ("client_id", "client_secret" or "api_key", "api_key_header"), "store", "pid", ...} when ready; see docs/wallet-sandbox.md')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', int('--port', 0, 65535), 9090)
    .addOption(new Option('--auth <kind>', 'how callers authenticate').choices(['client_credentials', 'api_key']).default('client_credentials'))
    .option('--client-id <id>', 'client_credentials: the client id (default: wallet-sandbox)')
    .option('--client-secret <secret>', 'client_credentials: the secret (default: generated)')
    .option('--api-key <key>', 'api_key: the key (default: generated)')
    .option('--api-key-header <name>', 'api_key: the header carrying the key', 'x-api-key')
    .option('--opening-balance <dollars>', 'cash balance of a user seen for the first time', amount, '1000.00')
    .option('--opening-bonus <dollars>', 'bonus balance of a user seen for the first time', amount, '0.00')
    .option('--seed <user=cash[:bonus]>', 'start a user with these balances in dollars (repeatable); others get the opening balances', seed, [])
    .option('--signing-secret <secret>', 'require wagerline\'s request signature made with this secret on every transaction call (docs/wallet.md)')
    .option('--latency-ms <n>', 'delay before every transaction call is processed', int('--latency-ms', 0, 600_000), 0)
    .option('--fail-rate <r>', 'share (0..1) of transaction calls answered 503 SIMULATED_FAILURE', rate, 0)
    .option('--break <modes>', `misbehave on purpose (repeatable or comma-separated): ${BREAK_MODES.join(', ')}`, breaks, [])
    .option('--slow-ms <n>', 'delay of --break slow', int('--slow-ms', 0, 600_000), 11_000)
    .option('--memory', 'keep state in memory instead of the configured PostgreSQL')
    .option('--schema <name>', 'PostgreSQL schema of the sandbox state (lower-case letters, digits, _)', schemaName, 'wallet_sandbox')
    .addOption(new Option('--amount-unit <unit>', 'how wire amounts are read').choices(['dollars', 'cents']).default('dollars'))
    .action((opts: Opts) => run(opts));
}
