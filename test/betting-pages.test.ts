// myBets pages: a walk with any page size returns each of the user's bets once, newest first, and
// only theirs; a cursor the service did not issue for this user's listing is refused.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { BettingUser } from '../src/modules/betting/betting.service.ts';
import type { Services } from '../src/services.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { CLIENT } from './wallet-fixtures.ts';

const MEETING = 770002;
let db: TestDatabase;
let sandbox: WalletSandbox;
let services: Services;
let tenantId: string;

before(async () => {
  db = await freshDatabase();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  services = testServices(db, createSecretBox(randomBytes(32)));
  tenantId = (await services.tenants.createTenant({ name: 'Pages' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Ballarat', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win'],
      runners: [{ number: 1, name: 'One', win: 2 }] }],
  });
});

after(async () => {
  await services.close();
  await sandbox.close();
  await db.drop();
});

const user = (userId: string): BettingUser => ({ tenantId, userId, token: 't', metadata: { userId, brandName: 'B', brandUserId: userId, data: '{}' } });
const place = (u: BettingUser, key: string) =>
  services.betting.placeBet(u, { idempotencyKey: key, type: 'WIN', stake: 1, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 2 }] });

test('a walk over myBets returns each bet once, newest first, whatever the page size; forged cursors are refused', async () => {
  const alice = user(randomUUID());
  const bob = user(randomUUID());
  const placed: string[] = [];
  for (let i = 0; i < 7; i++) placed.push((await place(alice, `a${i}`)).id);
  await place(bob, 'b0');
  for (const size of [1, 3, 7, 10]) {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Awaited<ReturnType<Services['betting']['myBets']>> = await services.betting.myBets(alice, size, after);
      seen.push(...page.bets.map((b) => b.id));
      if (!page.hasMore) break;
      after = page.endCursor;
    }
    assert.deepEqual(seen, [...placed].reverse(), `page size ${size}`);
  }
  const first = await services.betting.myBets(alice, 2, null);
  await assert.rejects(services.betting.myBets(bob, 2, first.endCursor), { code: 'bad_request' }, 'another user\'s cursor');
  const forged = Buffer.from(JSON.stringify([new Date().toISOString(), placed[0]])).toString('base64url');
  await assert.rejects(services.betting.myBets(alice, 2, forged), { code: 'bad_request' });
  await assert.rejects(services.betting.myBets(alice, 2, `${first.endCursor}x`), { code: 'bad_request' });
});
