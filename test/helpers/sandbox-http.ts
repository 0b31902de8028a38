// Small HTTP helpers for the sandbox's own tests (plain fetch: what any operator's client would do).
import { randomUUID } from 'node:crypto';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';

export const TEST_CLIENT = { kind: 'client_credentials', clientId: 'op-client', clientSecret: 'op-secret' } as const;

export async function bearer(sandbox: WalletSandbox, client = TEST_CLIENT): Promise<Record<string, string>> {
  const res = await fetch(`${sandbox.url}/auth/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  const body = (await res.json()) as { access_token: string };
  return { authorization: `Bearer ${body.access_token}` };
}

export interface CallResult {
  status: number;
  json: any;
  text: string;
}

export async function call(sandbox: WalletSandbox, headers: Record<string, string>, op: string, body: unknown): Promise<CallResult> {
  const res = await fetch(`${sandbox.url}/${op}`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Bodies of the six transaction calls for one bet (a new one unless given), each with its own transactionId. */
export function betBodies(userId: string = randomUUID(), betId: string = randomUUID()) {
  const common = (amount: number, bonusFlag = false) => ({ transactionId: randomUUID(), betId, userId, bonusFlag, amount });
  return {
    userId, betId,
    reserve: (amount: number, bonusFlag = false) => ({ ...common(amount, bonusFlag), token: 'placement-token', metadata: { userId, brandName: 'b', brandUserId: 'u1', data: '' } }),
    confirm: (amount: number, bonusFlag = false) => ({ ...common(amount, bonusFlag), betMetadata: { id: betId, ticketId: randomUUID(), amount, legs: [] } }),
    refundBet: (amount: number, bonusFlag = false) => common(amount, bonusFlag),
    settleBet: (amount: number, bonusFlag = false) => common(amount, bonusFlag),
    debit: (amount: number, transactionType: string, bonusFlag = false) => ({ ...common(amount, bonusFlag), transactionType }),
    credit: (amount: number, transactionType: string, bonusFlag = false) => ({ ...common(amount, bonusFlag), transactionType }),
  };
}
