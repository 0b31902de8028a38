// tenant set-limits: how much of a bet the tenant's book accepts (docs/betting.md, Limits).
import type { Command } from 'commander';
import { withRuntime } from '../run.ts';

interface LimitOptions {
  maxStake?: string;
  maxPayout?: string;
  maxRunnerLiability?: string;
}

/** "none" removes a limit; any other text is checked by the service as dollars. */
const limit = (raw: string | undefined) => (raw === undefined ? undefined : raw.trim().toLowerCase() === 'none' ? null : raw);

export function registerBettingCommands(tenant: Command): void {
  tenant
    .command('set-limits')
    .description('Set a tenant\'s acceptance limits for placed bets, in dollars (docs/betting.md). A limit not given is kept; "none" removes one. ' +
      'Prints {tenant_id, max_stake, max_payout, max_runner_liability, updated_at}')
    .argument('<tenant_id>')
    .option('--max-stake <dollars>', 'the most of one bet\'s stake taken')
    .option('--max-payout <dollars>', 'fixed odds: the most one bet may pay out')
    .option('--max-runner-liability <dollars>', 'fixed-odds win and place: the most the book may pay out on one runner')
    .action((tenantId: string, opts: LimitOptions) =>
      withRuntime((rt) => rt.services.betting.setLimits(tenantId, {
        maxStake: limit(opts.maxStake), maxPayout: limit(opts.maxPayout), maxRunnerLiability: limit(opts.maxRunnerLiability),
      })),
    );
}
