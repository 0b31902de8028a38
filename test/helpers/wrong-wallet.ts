// A wallet that is wrong (or strict) in one way: the reference sandbox behind a small proxy on
// 127.0.0.1 that changes one behaviour. Real HTTP both ways, so the checker under test sees exactly
// what an operator's wallet would send it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { runWalletCheck } from '../../src/tools/wallet-check/index.ts';
import { startWalletSandbox, type SandboxOptions, type WalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';

export const CC = { kind: 'client_credentials', clientId: 'check-client', clientSecret: 'check-secret' } as const;

export type Body = Record<string, unknown>;
/** Returns an answer to send instead of forwarding, a body to forward instead (to `op`'s path, or another's), or nothing (forward as is). */
export type Hook = (op: string, body: Body | undefined, req: IncomingMessage, raw: string) =>
  | { answer: { status: number; body: unknown } }
  | { forward: Body; op?: string }
  | undefined;
/** Sees every forwarded transaction call and the sandbox's answer; may return another answer to send back. */
export type After = (op: string, body: Body | undefined, status: number, text: string) => { status: number; body: unknown } | void;

export interface WrongWallet {
  url: string;
  sandbox: WalletSandbox;
  close(): Promise<void>;
}

function parse(raw: string): Body | undefined {
  try {
    return raw ? (JSON.parse(raw) as Body) : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites the JSON body of a GET /balances answer (its balances as the wallet reports them). */
export type Balances = (body: Body) => Body;

export async function wrongWallet(hook: Hook, after: After = () => undefined, sandboxOptions: Partial<SandboxOptions> = {},
  balances?: Balances): Promise<WrongWallet> {
  const sandbox = await startWalletSandbox({ auth: CC, ...sandboxOptions });
  const front: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const op = (req.url ?? '/').replace(/^\//, '').split('?')[0]!;
    const body = parse(raw);
    const decided = req.method === 'POST' && op !== 'auth/token' ? hook(op, body, req, raw) : undefined;
    if (decided && 'answer' in decided) {
      res.writeHead(decided.answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(decided.answer.body));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    }
    const path = decided && 'forward' in decided && decided.op ? `/${decided.op}` : req.url;
    const upstream = await fetch(`${sandbox.url}${path}`, {
      method: req.method, headers,
      body: req.method === 'POST' ? (decided && 'forward' in decided ? JSON.stringify(decided.forward) : raw) : undefined,
    });
    const text = await upstream.text();
    if (req.method === 'GET' && balances && upstream.status === 200) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(balances(JSON.parse(text) as Body)));
    }
    const instead = req.method === 'POST' ? after(op, body, upstream.status, text) : undefined;
    if (instead) return void res.writeHead(instead.status, { 'content-type': 'application/json' }).end(JSON.stringify(instead.body));
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    sandbox,
    async close() {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await sandbox.close();
    },
  };
}

export function failedNames(report: { checks: Array<{ name: string; ok: boolean }> }): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => c.name).sort();
}

export function failures(report: { checks: Array<{ name: string; ok: boolean; detail: string }> }): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
}

export const refusal = (status: number, code: string, message: string) => ({ answer: { status, body: { message, code, statusCode: status } } });

/** The checker's report on `wallet` (client credentials, effects judged by balances); the wallet is closed after. */
export async function checkAgainst(wallet: WrongWallet) {
  try {
    const report = await runWalletCheck({ url: wallet.url, auth: CC });
    assert.equal(report.effects, 'balances');
    return report;
  } finally {
    await wallet.close();
  }
}
