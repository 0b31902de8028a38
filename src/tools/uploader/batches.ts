// Groups a file's bets into upload requests: one meeting and race per request, at most 1,000
// bets each (spec 8), races in the order they first appear in the file, bets in file order.
import type { FileBet } from './read-bets.ts';

export const MAX_BATCH = 1000;

export interface Batch {
  meetingId: string;
  raceNumber: number;
  bets: Record<string, unknown>[];
  /** Where each bet is in the file, parallel to bets. */
  at: string[];
}

export function toBatches(bets: FileBet[], size = MAX_BATCH): Batch[] {
  if (!Number.isInteger(size) || size < 1 || size > MAX_BATCH) throw new RangeError(`batch size must be 1 to ${MAX_BATCH}`);
  const races = new Map<string, FileBet[]>();
  for (const bet of bets) {
    const key = `${bet.meetingId}/${bet.raceNumber}`;
    let list = races.get(key);
    if (!list) races.set(key, (list = []));
    list.push(bet);
  }
  const out: Batch[] = [];
  for (const list of races.values()) {
    for (let i = 0; i < list.length; i += size) {
      const chunk = list.slice(i, i + size);
      out.push({ meetingId: chunk[0]!.meetingId, raceNumber: chunk[0]!.raceNumber, bets: chunk.map((b) => b.bet), at: chunk.map((b) => b.at) });
    }
  }
  return out;
}

/** The request body of a batch (spec 2.1). meeting_id goes as a JSON integer when it is one. */
export function requestBody(batch: Batch): string {
  const meeting = Number(batch.meetingId);
  return JSON.stringify({
    meeting_id: Number.isSafeInteger(meeting) ? meeting : batch.meetingId,
    race_number: batch.raceNumber,
    bets: batch.bets,
  });
}
