// myBets pages: a walk with any page size returns each of the user's bets once, newest first, and
// only theirs; a cursor the service did not issue for this user's listing is refused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { BettingUser } from '../src/modules/betting/betting.service.ts';
import type { Services } from '../src/services.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770002;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
});
after(() => f.close());

const place = (u: BettingUser, key: string) =>
  f.services.betting.placeBet(u, { idempotencyKey: key, type: 'WIN', stake: 1, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }] });

test('a walk over myBets returns each bet once, newest first, whatever the page size; forged cursors are refused', async () => {
  const alice = f.user(randomUUID());
  const bob = f.user(randomUUID());
  const placed: string[] = [];
  for (let i = 0; i < 7; i++) placed.push((await place(alice, `a${i}`)).id);
  await place(bob, 'b0');
  for (const size of [1, 3, 7, 10]) {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Awaited<ReturnType<Services['betting']['myBets']>> = await f.services.betting.myBets(alice, size, after);
      seen.push(...page.bets.map((b) => b.id));
      for (const bet of page.bets) assert.deepEqual(bet.legs.map((l) => [l.meetingId, l.raceNumber, l.selections]), [[MEETING, 1, [[1]]]], 'each bet with its own legs');
      if (!page.hasMore) break;
      after = page.endCursor;
    }
    assert.deepEqual(seen, [...placed].reverse(), `page size ${size}`);
  }
  const first = await f.services.betting.myBets(alice, 2, null);
  await assert.rejects(f.services.betting.myBets(bob, 2, first.endCursor), { code: 'bad_request' }, 'another user\'s cursor');
  const forged = Buffer.from(JSON.stringify([new Date().toISOString(), placed[0]])).toString('base64url');
  await assert.rejects(f.services.betting.myBets(alice, 2, forged), { code: 'bad_request' });
  await assert.rejects(f.services.betting.myBets(alice, 2, `${first.endCursor}x`), { code: 'bad_request' });
});
