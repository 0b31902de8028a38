// sharedRaceReads (placement.ts): placements asking for a race while a read of it runs share the
// read that starts once it ends, so a read never predates its askers; locked reads pass through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedRaceReads, type CatalogueRace, type CatalogueReader } from './placement.ts';

test('askers of one race during a read share the next read; other races and locked reads are read apart', async () => {
  const reads: string[] = [];
  let release!: () => void;
  let held: Promise<void> | undefined = new Promise((resolve) => { release = resolve; });
  const catalogue: CatalogueReader = {
    async getRace(meetingId, raceNumber, options) {
      const n = reads.push(`${meetingId}/${raceNumber}${options?.lock ? ' locked' : ''}`);
      const wait = held;
      held = undefined;
      await wait;
      return { event_id: `read ${n}` } as CatalogueRace;
    },
    getPools: async () => [],
  };
  const shared = sharedRaceReads(catalogue);
  const first = shared.getRace(1, 1);
  const meanwhile = [shared.getRace(1, 1), shared.getRace(1, 1), shared.getRace(1, 1)];
  const otherRace = shared.getRace(1, 2);
  const locked = shared.getRace(1, 1, { tx: {} as never, lock: true });
  release();
  assert.equal((await first)?.event_id, 'read 1');
  assert.deepEqual((await Promise.all(meanwhile)).map((r) => r?.event_id), ['read 4', 'read 4', 'read 4'], 'one read, begun after the first ended');
  assert.equal((await otherRace)?.event_id, 'read 2');
  assert.equal((await locked)?.event_id, 'read 3');
  assert.deepEqual(reads, ['1/1', '1/2', '1/1 locked', '1/1']);
});
