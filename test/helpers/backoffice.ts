// Back-office clients and requests for tests of POST /backoffice/query.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { PlaceBetInput } from '../../src/modules/betting/placement.ts';
import { startWalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import { CLIENT } from '../wallet-fixtures.ts';
import { createTestApp, seedClient, type TestContext } from './app.ts';

export const BACKOFFICE = '/backoffice/query';

export interface BackofficeClient {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  /** x-api-key and the bearer token. */
  headers: Record<string, string>;
}

/** A back-office client (scope backoffice) of a new tenant, or of `tenantId`, with a token. */
export async function backofficeClient(ctx: TestContext, options: { tenantId?: string; scopes?: string[] } = {}): Promise<BackofficeClient> {
  const seeded = await seedClient(ctx, { scopes: options.scopes ?? ['backoffice'], ...(options.tenantId && { tenantId: options.tenantId }) });
  return {
    tenantId: seeded.tenant.tenant_id, clientId: seeded.client.client_id, clientSecret: seeded.client.client_secret, token: seeded.token,
    headers: { 'x-api-key': seeded.client.client_id, authorization: `Bearer ${seeded.token}` },
  };
}

export interface GraphqlBody {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; path?: unknown[]; extensions: { code: string; [k: string]: unknown } }>;
}

/** POSTs a GraphQL request; `body.errors` codes are easy to read in assertions. */
export async function post(ctx: TestContext, headers: Record<string, string>, query: string, variables?: unknown, operationName?: string) {
  const res = await ctx.app.inject({
    method: 'POST', url: BACKOFFICE, headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ query, ...(variables !== undefined && { variables }), ...(operationName && { operationName }) }),
  });
  return { res, body: res.json() as GraphqlBody };
}

export const codes = (body: GraphqlBody) => (body.errors ?? []).map((e) => e.extensions.code);

export const GET_BETS = `query GetBets($input: GetBetsInput!) {
  getBets(input: $input) { bets { id created_at metadata { tenant_id status } } pagination { last_id count has_more } }
}`;

export function page(res: LightMyRequestResponse) {
  return (res.json() as GraphqlBody).data!.getBets as { bets: Array<{ id: string; created_at: string; metadata: { tenant_id: string; status: string } }>; pagination: { last_id: string | null; count: number; has_more: boolean } };
}

/**
 * An app with a back-office client whose tenant uses the reference wallet, two open races of
 * `meetingId` (runners 1-8, win 3.00 to 10.00, place 1.50; win, place and exacta), a wallet worker
 * driven by drain(), and bets placed as a frontend user would place them.
 */
export async function walletBench(meetingId: number) {
  const ctx = await createTestApp();
  const sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  const client = await backofficeClient(ctx);
  await ctx.services.wallet.setWallet({ tenantId: client.tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await ctx.services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [1, 2].map((race) => ({ race_number: race, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta'],
      runners: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) })),
  });
  const worker = ctx.services.wallet.createWorker({ listen: false });
  return {
    ctx, sandbox, client, worker,
    /** Places a bet for a new user and delivers its wallet calls. */
    async place(input: Omit<PlaceBetInput, 'idempotencyKey'>) {
      const userId = randomUUID();
      const user = { tenantId: client.tenantId, userId, token: 'custom-token', metadata: { userId, brandName: 'Test', brandUserId: userId, data: '{}' }, tenantTimezoneUsable: true };
      const bet = await ctx.services.betting.placeBet(user, { idempotencyKey: randomUUID(), ...input }, { ip: '203.0.113.7', medium: 'app' });
      await worker.drain();
      return { userId, betId: bet.id, status: bet.status };
    },
    async close() {
      await worker.stop();
      await ctx.close();
      await sandbox.close();
    },
  };
}
