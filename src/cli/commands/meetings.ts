// meeting import: registers meetings (and race start times) for the upload deadline (spec 8).
import type { Command } from 'commander';
import { parseMeetingsFile, type MeetingInput } from '../../modules/catalogue/catalogue-file.ts';
import { daysToMove, shiftDate } from '../../racing/redate.ts';
import { dateOption, readText, withRuntime } from '../run.ts';

/** The meetings moved so that the earliest meeting date is `date` (race times move with them). */
function redated(meetings: MeetingInput[], date: string): { meetings: MeetingInput[]; days: number } {
  const days = daysToMove(meetings.map((m) => m.date), date);
  return {
    days,
    meetings: meetings.map((m) => ({ ...m, date: shiftDate(m.date, days), races: m.races.map((r) => ({ ...r, start_time: shiftDate(r.start_time, days) })) })),
  };
}

export function registerMeetingCommands(program: Command): void {
  program
    .command('meeting')
    .description('Manage the meeting catalogue (meeting dates and race start times set the upload deadline)')
    .command('import')
    .description('Import meetings from a .json or .csv file (see docs/upload.md and examples/meetings.*). ' +
      'Existing meetings and race start times are updated. Prints {"imported": <meetings>, "races": <race start times>} ' +
      '(with --date also "date" and "shifted_days")')
    .argument('<file>', 'meetings file, .json or .csv')
    .option('--date <day>', 'move the file\'s racing day to this one ("today" in UTC, or YYYY-MM-DD): every meeting date and race ' +
      'start time moves by the same whole days (e.g. to replay examples/meetings.json today)', dateOption)
    .action(async (file: string, opts: { date?: string }) => {
      // The file is read before the database is opened: one that cannot be read is a usage error.
      const text = await readText(file);
      const parsed = parseMeetingsFile(file, text);
      const moved = opts.date ? redated(parsed, opts.date) : undefined;
      return withRuntime(async (rt) => ({
        ...(await rt.services.catalogue.importMeetings(moved?.meetings ?? parsed)),
        ...(moved && { date: opts.date, shifted_days: moved.days }),
      }));
    });
}
