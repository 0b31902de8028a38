// The race catalogue: meetings and their races' start times (the upload deadline reads them;
// runners, prices and results come next). The only writer of the catalogue's tables.
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { MeetingInput } from './catalogue-file.ts';
import * as q from './catalogue.queries.ts';

export function createCatalogueService({ db }: { db: Pool }) {
  return {
    /** Upserts meetings and race start times in one transaction; races not listed are kept. */
    async importMeetings(meetings: MeetingInput[]): Promise<{ imported: number; races: number }> {
      return withTransaction(db, async (tx) => {
        await q.upsertMeetings(tx, meetings);
        const races = meetings.flatMap((m) => m.races.map((r) => ({ meeting_id: m.meeting_id, ...r })));
        await q.upsertRaceStarts(tx, races);
        return { imported: meetings.length, races: races.length };
      });
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
