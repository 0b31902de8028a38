// meeting import: registers meetings (and race start times) for the upload deadline (spec 8).
import type { Command } from 'commander';
import { parseMeetingsFile } from '../../modules/catalogue/catalogue-file.ts';
import { readText, withRuntime } from '../run.ts';

export function registerMeetingCommands(program: Command): void {
  program
    .command('meeting')
    .description('Manage the meeting catalogue (meeting dates and race start times set the upload deadline)')
    .command('import')
    .description('Import meetings from a .json or .csv file (see docs/upload.md and examples/meetings.*). ' +
      'Existing meetings and race start times are updated. Prints {"imported": <meetings>, "races": <race start times>}')
    .argument('<file>', 'meetings file, .json or .csv')
    .action(async (file: string) => {
      // The file is read before the database is opened: one that cannot be read is a usage error.
      const text = await readText(file);
      return withRuntime((rt) => rt.services.catalogue.importMeetings(parseMeetingsFile(file, text)));
    });
}
