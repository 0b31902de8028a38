// Small HTTP helpers for the sandbox's own tests (plain fetch: what any operator's client would do).
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { startWalletSandbox, type SandboxOptions } from '../../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import type { TestDatabase } from './db.ts';

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

/** A running sandbox of a suite and its client's bearer headers (set once the suite's before ran). */
export interface SandboxUnderTest {
  sandbox: WalletSandbox;
  auth: Record<string, string>;
}

/**
 * Defines `tests` twice, each against a sandbox of its own store: in memory, then in PostgreSQL
 * (schema wallet_sandbox of `db()`, a database the caller creates in a `before` of its own).
 */
export function describeOnEachStore(title: string, db: () => TestDatabase, tests: (s: SandboxUnderTest) => void): void {
  const stores: Array<[string, () => SandboxOptions['store']]> = [
    ['memory', () => ({ kind: 'memory' })],
    ['postgres', () => ({ kind: 'postgres', pool: db().pool, schema: 'wallet_sandbox' })],
  ];
  for (const [name, storeFor] of stores) {
    describe(`${title} (${name} store)`, () => {
      const s = {} as SandboxUnderTest;
      before(async () => {
        s.sandbox = await startWalletSandbox({ auth: TEST_CLIENT, store: storeFor() });
        s.auth = await bearer(s.sandbox);
      });
      after(() => s.sandbox.close());
      tests(s);
    });
  }
}
