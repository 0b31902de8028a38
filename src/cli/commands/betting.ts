// tenant set-limits: how much of a bet the tenant's book accepts (docs/betting.md, Limits); and
// bet cancel | cash-out | adjust | show | history: an operator's changes to one placed bet and its
// record (docs/bets-admin.md). Each prints one JSON object; money is decimal text ("12.50").
import { InvalidArgumentError, type Command } from 'commander';
import { parseDollars } from '../../racing/money.ts';
import { amount, example, uuid, withRuntime } from '../run.ts';

/** Who made a change, as the bet's history records it. */
const CLI = { by: 'cli' };
const BET = '3f1c2a9e-0000-4000-8000-000000000001';
const TENANT = '9b2d7c41-0000-4000-8000-00000000000a';

interface LimitOptions {
  maxStake?: string;
  maxPayout?: string;
  maxRunnerLiability?: string;
}

/** "none" removes a limit; any other text is checked by the service as dollars. */
const limit = (raw: string | undefined) => (raw === undefined ? undefined : raw.trim().toLowerCase() === 'none' ? null : raw);

/** A limit as given: "none", or dollars above 0 the service can store; anything else is a usage error (exit 2). */
function limitOption(value: string): string {
  if (value.trim().toLowerCase() === 'none') return value;
  const cents = parseDollars(value.trim());
  if (cents === undefined || cents <= 0n || cents >= 10n ** 16n) throw new InvalidArgumentError('must be an amount in dollars above 0 and below 10^14 with at most two decimals (like 500 or 12.50), or none');
  return value;
}

export function registerBettingCommands(tenant: Command): void {
  tenant
    .command('set-limits')
    .description('Set a tenant\'s acceptance limits for placed bets, in dollars (docs/betting.md). A limit not given is kept; "none" removes one. ' +
      'Prints {"tenant_id", "max_stake", "max_payout", "max_runner_liability", "updated_at"}')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .option('--max-stake <dollars>', 'the most of one bet\'s stake taken ("none": no limit)', limitOption)
    .option('--max-payout <dollars>', 'fixed odds: the most one bet may pay out ("none": no limit)', limitOption)
    .option('--max-runner-liability <dollars>', 'fixed-odds win and place: the most the book may pay out on one runner ("none": no limit)', limitOption)
    .action((tenantId: string, opts: LimitOptions) =>
      withRuntime((rt) => rt.services.betting.setLimits(tenantId, {
        maxStake: limit(opts.maxStake), maxPayout: limit(opts.maxPayout), maxRunnerLiability: limit(opts.maxRunnerLiability),
      })),
    );
}

export function registerBetCommands(program: Command): void {
  const bet = program.command('bet').description('An operator\'s changes to one placed bet, and its record (docs/bets-admin.md)');
  const ref = (tenantId: string, betId: string) => ({ tenantId, betId });
  bet
    .command('cancel')
    .description('Cancel a bet: winnings already paid are taken back (debit betwincancelled), then the stake is returned (refundBet). ' +
      'Cancelling a cancelled bet changes nothing. Prints {"tenant_id", "bet_id", "status", "previous_status", "changed", "payout", "refunded", "cash_out", "adjusted", "calls"}')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<bet_id>', 'bet id (UUID)', uuid)
    .option('--reason <text>', 'why, for the bet\'s history (at most 500 characters)')
    .addHelpText('after', example(`wagerline bet cancel ${TENANT} ${BET} --reason "race meeting void by stewards"`))
    .action((tenantId: string, betId: string, opts: { reason?: string }) =>
      withRuntime((rt) => rt.services.bets.cancelBet(ref(tenantId, betId), { reason: opts.reason ?? null, ...CLI })));
  bet
    .command('cash-out')
    .description('Cash out an accepted fixed-odds bet not yet settled, for the amount quoted to the user (credit cashout); the bet is then closed. ' +
      'Prints the same fields as bet cancel')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<bet_id>', 'bet id (UUID)', uuid)
    .requiredOption('--amount <dollars>', 'above 0, at most two decimals, at most what the bet could return', amount)
    .addHelpText('after', example(`wagerline bet cash-out ${TENANT} ${BET} --amount 12.50`))
    .action((tenantId: string, betId: string, opts: { amount: string }) =>
      withRuntime((rt) => rt.services.bets.cashOut(ref(tenantId, betId), opts.amount, CLI)));
  bet
    .command('adjust')
    .description('Credit the user of a taken bet by hand (credit adjustreversetransaction), with the reason; the bet\'s status is kept. ' +
      'Prints the same fields as bet cancel')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<bet_id>', 'bet id (UUID)', uuid)
    .requiredOption('--amount <dollars>', 'above 0, at most two decimals', amount)
    .requiredOption('--reason <text>', 'why (1 to 500 characters), kept in the bet\'s history')
    .option('--idempotency-key <key>', 'made once per key and bet: run again, it changes nothing (1 to 128 characters)')
    .addHelpText('after', example(`wagerline bet adjust ${TENANT} ${BET} --amount 5.00 --reason "goodwill: late price change" --idempotency-key goodwill-1`))
    .action((tenantId: string, betId: string, opts: { amount: string; reason: string; idempotencyKey?: string }) =>
      withRuntime((rt) => rt.services.bets.adjust(ref(tenantId, betId), opts.amount, opts.reason, { ...CLI, key: opts.idempotencyKey })));
  bet
    .command('show')
    .description('A bet\'s whole record: status, result, stake, accepted stake, payout, refunds, cash out, adjustments, legs, ' +
      'its wallet calls with their status, and its history')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<bet_id>', 'bet id (UUID)', uuid)
    .addHelpText('after', example(`wagerline bet show ${TENANT} ${BET}`))
    .action((tenantId: string, betId: string) => withRuntime((rt) => rt.services.bets.show(ref(tenantId, betId))));
  bet
    .command('history')
    .description('A bet\'s states, oldest first, each with its time, cause and detail. Prints {"tenant_id", "bet_id", "history": [{"at", "from", "to", "cause", "detail"}]}')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<bet_id>', 'bet id (UUID)', uuid)
    .addHelpText('after', example(`wagerline bet history ${TENANT} ${BET}`))
    .action((tenantId: string, betId: string) => withRuntime(async (rt) => ({
      tenant_id: tenantId, bet_id: betId, history: await rt.services.bets.history(ref(tenantId, betId)),
    })));
}
