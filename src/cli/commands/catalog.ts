// catalog import | sample, and race price | scratch | status | show: the race catalogue
// (docs/catalogue.md). Arguments are checked before the database is opened, so a bad one writes
// nothing; each command prints one JSON object.
import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import { MAX_RUNNER_NUMBER, parseDeduction, parsePrice } from '../../racing/catalogue-rules.ts';
import { isManualStatus, MANUAL_STATUSES } from '../../racing/race-status.ts';
import { isDate, MAX_RACE_NUMBER, positiveInteger } from '../../racing/values.ts';
import { withRuntime } from '../run.ts';

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

async function readJson(file: string): Promise<unknown> {
  if (!/\.json$/i.test(file)) throw new AppError('bad_request', `${file}: a catalogue file is .json`);
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('bad_request', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}

export function registerCatalogCommands(program: Command): void {
  const catalog = program.command('catalog').description('The race catalogue: meetings, races, runners, prices, pools (docs/catalogue.md)');
  catalog
    .command('import')
    .description('Import meetings with races, runners, prices and pools from a .json file (a superset of examples/meetings.json). ' +
      'The whole file is checked first; nothing is written when any of it is wrong. ' +
      'Prints {"imported", "races", "runners", "price_changes", "pools"}')
    .argument('<file>', 'catalogue file, .json')
    .action((file: string) => withRuntime(async (rt) => rt.services.catalogue.importCatalog(await readJson(file))));
  catalog
    .command('sample')
    .description('Import the sample racing day (examples/racing-day.json) dated --date; for today its races start over the coming hours. ' +
      'Prints {"date", "imported", "races", "runners", "price_changes", "pools", "meetings"}')
    .option('--date <date>', '"today" or YYYY-MM-DD', sampleDate, 'today')
    .action((opts: { date: string }) => withRuntime((rt) => rt.services.catalogue.sample(opts.date)));

  const race = program.command('race').description('Change or show one race of the catalogue');
  race
    .command('price')
    .description('Set a runner\'s fixed-odds prices (1.01 to 10000, at most 2 decimals); every change is kept with its time. ' +
      'Prints {"meeting_id", "race_number", "runner", "changed"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<runner>', 'runner number', runnerNumber)
    .option('--win <price>', 'win price, e.g. 3.4', decimal(parsePrice))
    .option('--place <price>', 'place price, e.g. 1.5', decimal(parsePrice))
    .action((m: number, r: number, n: number, opts: { win?: string; place?: string }, cmd: Command) => {
      if (opts.win === undefined && opts.place === undefined) cmd.error('error: give --win, --place or both');
      return withRuntime((rt) => rt.services.catalogue.setPrice(m, r, n, opts));
    });
  race
    .command('scratch')
    .description('Scratch a runner, with optional late-scratching deductions in percent. Prints {"meeting_id", "race_number", "runner", "changed"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<runner>', 'runner number', runnerNumber)
    .option('--win-deduction <percent>', 'deduction from win dividends, 0 to 99.99', decimal(parseDeduction))
    .option('--place-deduction <percent>', 'deduction from place dividends, 0 to 99.99', decimal(parseDeduction))
    .action((m: number, r: number, n: number, opts: { winDeduction?: string; placeDeduction?: string }) =>
      withRuntime((rt) => rt.services.catalogue.scratch(m, r, n, {
        ...(opts.winDeduction !== undefined && { win_deduction: opts.winDeduction }),
        ...(opts.placeDeduction !== undefined && { place_deduction: opts.placeDeduction }),
      })));
  race
    .command('status')
    .description(`Move a race to ${MANUAL_STATUSES.join(' | ')} (open → suspended ⇄ open → closed; abandoned from open, suspended or closed). ` +
      'Prints {"meeting_id", "race_number", "event_id", "status", "previous_status", "changed"}')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .argument('<status>', MANUAL_STATUSES.join(' | '), status)
    .action((m: number, r: number, s: string) => withRuntime((rt) => rt.services.catalogue.setStatus(m, r, s)));
  race
    .command('show')
    .description('Show a race: status, products, event id, runners with prices and scratchings')
    .argument('<meeting_id>', 'meeting id', meetingId)
    .argument('<race_number>', 'race number', raceNumber)
    .action((m: number, r: number) => withRuntime((rt) => rt.services.catalogue.requireRace(m, r)));
}
