// meeting import: registers meetings (and race start times) for the upload deadline (spec 8).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseMeetingsFile } from '../../modules/catalogue/catalogue-file.ts';
import { withRuntime } from '../run.ts';

export function registerMeetingCommands(program: Command): void {
  program
    .command('meeting')
    .description('Manage the meeting catalogue (meeting dates and race start times set the upload deadline)')
    .command('import')
    .description('Import meetings from a .json or .csv file (see docs/upload.md and examples/meetings.*). ' +
      'Existing meetings and race start times are updated. Prints {"imported": <meetings>, "races": <race start times>}')
    .argument('<file>', 'meetings file, .json or .csv')
    .action((file: string) =>
      withRuntime(async (rt) => {
        const meetings = parseMeetingsFile(file, await readFile(file, 'utf8'));
        return rt.services.catalogue.importMeetings(meetings);
      }),
    );
}
