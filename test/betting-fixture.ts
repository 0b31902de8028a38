// A betting bench for service-level tests: a fresh database, the reference wallet on 127.0.0.1, the
// services as the composition root builds them, one tenant with that wallet, and one open race.
import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { BettingUser } from '../src/modules/betting/betting.service.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase } from './helpers/db.ts';
import { CLIENT } from './wallet-fixtures.ts';

/** Race 1 of `meetingId`, starting in an hour: runners 1-4 at win prices 3, 4, 5 and 6. */
export async function bettingFixture(meetingId: number, options: { walletLatencyMs?: number } = {}) {
  const db = await freshDatabase();
  const sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, latencyMs: options.walletLatencyMs ?? 0 });
  const services = testServices(db, createSecretBox(randomBytes(32)));
  const tenantId = (await services.tenants.createTenant({ name: 'Betting' })).tenant_id;
  await services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'exacta'],
      runners: [1, 2, 3, 4].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) }],
  });
  return {
    db, sandbox, services, tenantId,
    /** A signed-in user of the tenant (a custom token: the wallet sandbox takes any). */
    user: (userId: string): BettingUser => ({ tenantId, userId, token: 'custom-token', metadata: { userId, brandName: 'Test', brandUserId: userId, data: '{}' } }),
    async close() {
      await services.close();
      await sandbox.close();
      await db.drop();
    },
  };
}
