// catalog import | sample, race price | scratch | status | result | show, and place-terms set | list:
// the race catalogue and its results (docs/catalogue.md). Arguments are checked before the database
// is opened, so a bad one writes nothing; each command prints one JSON object. A command that
// queues a race's settlement (a final result, an abandonment, a scratching) also settles it before
// it returns, so the wallet calls it causes are queued when it prints.
import { InvalidArgumentError, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import { MAX_RUNNER_NUMBER, parseDeduction, parsePrice } from '../../racing/catalogue-rules.ts';
import { isManualStatus, MANUAL_STATUSES } from '../../racing/race-status.ts';
import { isDate, MAX_RACE_NUMBER, positiveInteger } from '../../racing/values.ts';
import type { Runtime } from '../../runtime.ts';
import { describeError, example, readText, usage, withRuntime } from '../run.ts';

const integer = (what: string, max: number) => (value: string): number => {
  const n = /^\d+$/.test(value) ? positiveInteger(value, max) : undefined;
  if (n === undefined) throw new InvalidArgumentError(`${what} must be an integer from 1 to ${max}`);
  return n;
};
const meetingId = integer('meeting_id', Number.MAX_SAFE_INTEGER);
const raceNumber = integer('race_number', MAX_RACE_NUMBER);
const runnerNumber = integer('runner', MAX_RUNNER_NUMBER);

const decimal = (parse: typeof parsePrice) => (value: string): string => {
  const parsed = parse(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
  return parsed.value;
};

function status(asked: string): string {
  const value = asked.trim().toLowerCase();
  if (!isManualStatus(value)) throw new InvalidArgumentError(`must be one of ${MANUAL_STATUSES.join(', ')} (interim and final are set by results)`);
  return value;
}

function sampleDate(value: string): string {
  if (value !== 'today' && !isDate(value)) throw new InvalidArgumentError('must be "today" or a date YYYY-MM-DD');
  return value;
}

/** A JSON option's value, parsed; a one-line error naming the option when it is not JSON. */
const json = (option: string) => (value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`${option} is not valid JSON (${(error as Error).message})`);
  }
};


/**
 * Settles the races queued by a change that has committed (`what`), so its refunds are queued
 * before the command returns. Should settling fail, the change stands and its race stays queued:
 * serve's settlement worker, or the next command that settles, takes it up.
 */
async function settleNow<T extends object>(rt: Runtime, what: string, done: T) {
  try {
    return { ...done, settlement: await rt.services.settlement.runPending() };
  } catch (error) {
    throw new AppError('internal_error', `${what} is recorded, but settling its bets failed: ${describeError(error)} (the settlement stays queued; serve or the next race command resumes it)`);
  }
}

async function readJson(file: string): Promise<unknown> {
  if (!/\.json$/i.test(file)) usage(`${file}: a catalogue file is .json`);
  const text = await readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    return usage(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('The race catalogue: meetings, races, runners, prices, pools (docs/catalogue.md)');
  catalog
    .command('import')
    .description('Import meetings with races, runners, prices and pools from a .json file (a superset of examples/meetings.json). ' +
      'The whole file is checked first; nothing is written when any of it is wrong. ' +
      'A runner it scratches is scratched as by race scratch: its bets are refunded now. ' +
      'A price it changes on a race past suspended refuses the whole file (the same prices again pass). ' +
      'Prints {"imported", "races", "runners", "price_changes", "pools", "settlement"}')
    .argument('<file>', 'catalogue file, .json')
    .addHelpText('after', example('wagerline catalog import examples/racing-day.json'))
    .action(async (file: string) => {
      const catalogue = await readJson(file); // before the database is opened
      return withRuntime(async (rt) => settleNow(rt, `the import of ${file}`, await rt.services.catalogue.importCatalog(catalogue)));
    });
  catalog
    .command('sample')
    .description('Import the sample racing day (examples/racing-day.json) dated --date; for today its races start over the coming hours, ' +
      'each meeting dated by its venue\'s local date (tomorrow\'s UTC date once its first race starts after local midnight). ' +
      'Prints {"date", "imported", "races", "runners", "price_changes", "pools", "meetings"}')
    .option('--date <date>', '"today" or YYYY-MM-DD', sampleDate, 'today')
    .addHelpText('after', example('wagerline catalog sample --date today'))
    .action((opts: { date: string }) => withRuntime((rt) => rt.services.catalogue.sample(opts.date)));

  const race = program.command('race').description('Change or show one race of the catalogue');
  race
    .command('price')
    .description('Set a runner\'s fixed-odds prices, --win, --place or both (1.01 to 10000, at most 2 decimals), while its race is open ' +
      'or suspended; every change is kept with its time. ' +
      'Prints {"meeting_id", "race_number", "runner", "changed"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<runner>', 'runner number', runnerNumber)
    .option('--win <price>', 'win price, e.g. 3.4', decimal(parsePrice))
    .option('--place <price>', 'place price, e.g. 1.5', decimal(parsePrice))
    .addHelpText('after', example('wagerline race price 900001 5 1 --win 3.4 --place 1.5'))
    .action((m: number, r: number, n: number, opts: { win?: string; place?: string }, cmd: Command) => {
      if (opts.win === undefined && opts.place === undefined) cmd.error('error: give --win, --place or both');
      return withRuntime((rt) => rt.services.catalogue.setPrice(m, r, n, opts));
    });
  race
    .command('scratch')
    .description('Scratch a runner, with optional late-scratching deductions in percent; bets on it are refunded now (docs/settlement.md). ' +
      'Prints {"meeting_id", "race_number", "runner", "changed", "settlement"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<runner>', 'runner number', runnerNumber)
    .option('--win-deduction <percent>', 'deduction from win dividends, 0 to 99.99', decimal(parseDeduction))
    .option('--place-deduction <percent>', 'deduction from place dividends, 0 to 99.99', decimal(parseDeduction))
    .addHelpText('after', example('wagerline race scratch 900001 5 3 --win-deduction 15 --place-deduction 5'))
    .action((m: number, r: number, n: number, opts: { winDeduction?: string; placeDeduction?: string }) =>
      withRuntime(async (rt) => settleNow(rt, `the scratching of runner ${n}`, await rt.services.catalogue.scratch(m, r, n, {
        ...(opts.winDeduction !== undefined && { win_deduction: opts.winDeduction }),
        ...(opts.placeDeduction !== undefined && { place_deduction: opts.placeDeduction }),
      }))));
  race
    .command('status')
    .description(`Move a race to ${MANUAL_STATUSES.join(' | ')} (open → suspended ⇄ open → closed; abandoned from open, suspended, closed or interim). ` +
      'An abandoned race\'s bets are settled now: refunded, but a multi counts the leg at 1.00 and stands on its other legs. ' +
      'Prints {"meeting_id", "race_number", "event_id", "status", "previous_status", "changed", "settlement"} (settlement: null unless abandoned)')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<status>', MANUAL_STATUSES.join(' | '), status)
    .addHelpText('after', example('wagerline race status 900001 5 closed', 'wagerline race status 900001 6 abandoned'))
    .action((m: number, r: number, s: string) => withRuntime(async (rt) => {
      const changed = await rt.services.catalogue.setStatus(m, r, s);
      return s === 'abandoned' ? settleNow(rt, `race ${r} of meeting ${m} abandoned`, changed) : { ...changed, settlement: null };
    }));
  race
    .command('result')
    .description('Record a race\'s result (docs/catalogue-results.md, Results). A final result (the default) settles the race\'s bets now; ' +
      'a final result on a final race amends it (a protest upheld) and settles the difference. --interim records a result to show, never settled. ' +
      'Prints {"meeting_id", "race_number", "status", "previous_status", "version", "amended", "changed", "placings", "dividends", "settlement"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .requiredOption('--placings <json>', 'places in order, the runners sharing each (a dead heat): [[4],[7,2],[1]]', json('--placings'))
    .option('--dividends <json>', 'tote dividends per $1 unit: {"exacta": 30.0, "trifecta": 120.5, "quaddie": 850.4} (quaddie, dailydouble: on the last race of a pool of theirs)', json('--dividends'))
    .option('--interim', 'an interim result: shown, not settled')
    .option('--short-field', 'fewer runners finished than the race\'s products need (places paid, exotics): the placings list every one (refused without it)')
    .addHelpText('after', example(
      'wagerline race result 900001 5 --placings \'[[4],[7],[2]]\' --interim',
      'wagerline race result 900001 5 --placings \'[[4],[7,2],[1]]\' --dividends \'{"exacta": 30.0, "trifecta": 120.5}\''))
    .action((m: number, r: number, opts: { placings: unknown; dividends?: unknown; interim?: boolean; shortField?: boolean }) =>
      withRuntime(async (rt) => {
        // Recorded first, then settled as a scratching is: a failure to settle says the result stands,
        // so the operator does not give it again (that would be an amendment).
        const recorded = await rt.services.catalogue.recordResult(m, r, {
          placings: opts.placings, ...(opts.dividends !== undefined && { dividends: opts.dividends }), interim: opts.interim === true,
          short_field: opts.shortField === true,
        });
        if (recorded.status !== 'final' || !recorded.changed) return { ...recorded, settlement: null };
        return settleNow(rt, `the final result of race ${r} of meeting ${m} (version ${recorded.version})`, recorded);
      }));
  race
    .command('show')
    .description('Show a race: status, products, event id, runners with prices and scratchings, and its latest result (null when none)')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .addHelpText('after', example('wagerline race show 900001 5'))
    .action((m: number, r: number) => withRuntime(async (rt) => ({
      ...await rt.services.catalogue.requireRace(m, r), result: await rt.services.catalogue.result(m, r),
    })));

  const terms = program.command('place-terms').description('Places paid by the number of starters, per jurisdiction (docs/catalogue-results.md, Place terms)');
  terms
    .command('set')
    .description('Set the place terms of a jurisdiction, or of * (every jurisdiction without terms of its own); settlement reads them. ' +
      'Prints {"jurisdiction", "terms", "updated_at"}')
    .argument('<jurisdiction>', 'a code such as VIC, or *')
    .requiredOption('--terms <json>', '[{"min_starters": 8, "places": 3}, {"min_starters": 5, "places": 2}]', json('--terms'))
    .addHelpText('after', example('wagerline place-terms set VIC --terms \'[{"min_starters":8,"places":3},{"min_starters":5,"places":2}]\''))
    .action((jurisdiction: string, opts: { terms: unknown }) => withRuntime((rt) => rt.services.catalogue.setPlaceTerms(jurisdiction, opts.terms)));
  terms
    .command('list')
    .description('Every jurisdiction\'s place terms, * first. Prints {"place_terms": [{"jurisdiction", "terms", "updated_at"}]}')
    .addHelpText('after', example('wagerline place-terms list'))
    .action(() => withRuntime((rt) => rt.services.catalogue.placeTerms()));
}
