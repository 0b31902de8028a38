// tenant set-wallet; wallet calls | failed | retry | resolve | worker.
import type { Command } from 'commander';
import type { SetWalletInput } from '../../modules/wallet/config/wallet-config.service.ts';
import { createLogger, eventLog } from '../../log.ts';
import { openRuntime, type Runtime } from '../../runtime.ts';
import { config, describeError, emit, fail, integer, uuid, withRuntime } from '../run.ts';

const walletOf = (rt: Runtime) => rt.services.wallet;


type SetWalletOptions = Omit<SetWalletInput, 'tenantId'>;

export function registerWalletCommands(program: Command, tenant: Command): void {
  tenant
    .command('set-wallet')
    .description('Configure the operator wallet of a tenant (docs/wallet-operations.md). Secrets are stored sealed and never printed. Prints the configuration without secrets')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .requiredOption('--url <wallet_url>', 'base URL of the wallet; calls go to <url>/reserve, <url>/confirm, ...')
    .requiredOption('--auth <kind>', 'client_credentials or api_key')
    .option('--client-id <id>', 'client_credentials: client id for <url>/auth/token')
    .option('--client-secret <secret>', 'client_credentials: client secret')
    .option('--api-key <key>', 'api_key: the shared key')
    .option('--api-key-header <name>', 'api_key: header that carries the key', 'x-api-key')
    .option('--signing-secret <secret>', 'sign every call: X-Wagerline-Timestamp and X-Wagerline-Signature (docs/wallet.md)')
    .option('--amount-unit <unit>', 'dollars (12.50) or cents (1250)', 'dollars')
    .option('--concurrency <n>', 'calls in flight to this wallet at most, across all processes', integer(1, 1000), 50)
    .option('--no-verify', 'save without first checking that the wallet answers and takes the credentials')
    .option('--private-network', 'the URL may lead to a private address (a wallet on this machine or behind a VPN): needed for a host name; an IP address is taken as written (docs/admin-api.md, "Private addresses")')
    .option('--no-private-network', 'the URL must lead to public addresses, checked now and at every connection, as for a wallet a tenant\'s own admin token sets')
    .action((tenantId: string, opts: SetWalletOptions) =>
      withRuntime((rt) => walletOf(rt).setWallet({
        tenantId, ...opts,
        ...(opts.auth === 'client_credentials' && { apiKeyHeader: undefined }),
      })),
    );

  const wallet = program.command('wallet').description('Wallet calls: inspect, retry parked calls, run the delivery worker');
  wallet
    .command('calls')
    .description('Every wallet call of a bet, in order, with every attempt and, for a call held behind an open one, that call (held_by). Prints {"bet_id", "calls": [...]}')
    .requiredOption('--bet <bet_id>', 'bet id (UUID)', uuid)
    .action((opts: { bet: string }) => withRuntime((rt) => walletOf(rt).callsOfBet(opts.bet)));
  wallet
    .command('failed')
    .description('Calls parked as failed (retries spent, or refused for good), each with the later calls of its bet it holds (held_calls). Prints {"count": every parked call, "calls": [the 1,000 parked longest]}')
    .option('--tenant <tenant_id>', 'only this tenant (UUID)', uuid)
    .action((opts: { tenant?: string }) => withRuntime((rt) => walletOf(rt).failed(opts.tenant)));
  wallet
    .command('retry')
    .description('Send a parked call, or one waiting after a failure, again now (same transactionId, fresh retry budget); its bet\'s later calls follow it. Prints the call')
    .argument('<call_id>', 'the call\'s id (its transactionId, a UUID)', uuid)
    .action((callId: string) => withRuntime((rt) => walletOf(rt).retry(callId)));
  wallet
    .command('resolve')
    .description('Close a parked call without sending it (settled with the operator by other means); unblocks its bet. Prints the call')
    .argument('<call_id>', 'the call\'s id (its transactionId, a UUID)', uuid)
    .requiredOption('--note <text>', 'why, for the record (1 to 500 characters)')
    .option('--reserved', 'a reserve the wallet was found holding: its conditional refundBet is sent (without: skipped)')
    .action((callId: string, opts: { note: string; reserved?: boolean }) =>
      withRuntime((rt) => walletOf(rt).resolve(callId, opts.note, undefined, { reserved: opts.reserved === true })));
  wallet
    .command('worker')
    .description('Run only the wallet delivery worker (serve runs it too unless WAGERLINE_WALLET_WORKER=off). Prints {"worker_id", "pid"}; stops on SIGTERM/SIGINT')
    .action(async () => {
      try {
        const cfg = config();
        const log = createLogger(cfg.LOG_LEVEL);
        const rt = await openRuntime(cfg, { log, events: eventLog(() => log, 'wallet') });
        const worker = rt.services.wallet.createWorker();
        await worker.start();
        emit({ worker_id: worker.workerId, pid: process.pid });
        const stop = () => {
          void worker.stop().then(() => rt.close()).then(() => process.exit(0), () => process.exit(1));
        };
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      } catch (error) {
        fail(describeError(error));
      }
    });
}
