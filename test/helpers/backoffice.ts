// Back-office clients and requests for tests of POST /backoffice/query.
import type { LightMyRequestResponse } from 'fastify';
import { seedClient, type TestContext } from './app.ts';

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
