// A tenant ready to take bets, set up through the real CLI as an operator would: the wallet sandbox
// as its wallet, the test's identity provider for its users, and a one-race meeting starting in an
// hour (runner 1 at 2.5, runner 2 at 4; win and place).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startWalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { CLIENT } from '../wallet-fixtures.ts';
import { cliEnv, runCli } from './cli.ts';
import { freshDatabase, type TestDatabase } from './db.ts';
import { TestJwks } from './jwks.ts';

export async function bettingTenant(env: Record<string, string>, o: { name: string; meetingId: number; venue: string; walletUrl: string; idp: TestJwks }): Promise<string> {
  const cli = async (args: string[]) => {
    const res = await runCli(args, env);
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res.json();
  };
  const tenantId = (await cli(['tenant', 'create', '--name', o.name])).tenant_id as string;
  await cli(['tenant', 'set-wallet', tenantId, '--url', o.walletUrl, '--auth', 'client_credentials', '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret]);
  await cli(['tenant', 'set-auth', tenantId, '--mode', 'jwt', '--jwks-url', o.idp.url, '--client-id', o.idp.clientId]);
  const file = path.join(env.WAGERLINE_DATA_DIR!, `day-${o.meetingId}.json`);
  writeFileSync(file, JSON.stringify({
    meeting_id: o.meetingId, date: new Date().toISOString().slice(0, 10), venue: o.venue, jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place'],
      runners: [{ number: 1, name: 'One', win: 2.5, place: 1.3 }, { number: 2, name: 'Two', win: 4, place: 1.8 }] }],
  }));
  await cli(['catalog', 'import', file]);
  return tenantId;
}

/** What an end-to-end betting test runs against: a fresh database, an identity provider, a sandbox wallet and a tenant on them. */
export interface BettingRig {
  db: TestDatabase;
  idp: TestJwks;
  sandbox: WalletSandbox;
  /** The CLI's (and `serve`'s) environment: the database and `settings`. */
  env: Record<string, string>;
  tenantId: string;
  close(): Promise<void>;
}

/** A BettingRig whose wallet answers every call after `latencyMs`. */
export async function bettingRig(o: { name: string; meetingId: number; venue: string; latencyMs: number; settings: Record<string, string> }): Promise<BettingRig> {
  const db = await freshDatabase();
  const idp = await TestJwks.start();
  const sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, latencyMs: o.latencyMs });
  const env = cliEnv(db.url, o.settings);
  const tenantId = await bettingTenant(env, { name: o.name, meetingId: o.meetingId, venue: o.venue, walletUrl: sandbox.url, idp });
  return {
    db, idp, sandbox, env, tenantId,
    close: async () => {
      await sandbox.close();
      await idp.close();
      await db.drop();
    },
  };
}
