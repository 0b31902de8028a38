// The wallet of `npm run bench:settlement`: the reference sandbox (memory store, BENCH_WALLET_LATENCY
// ms per call), in a process of its own so that its CPU is measured apart from the worker's. The
// benchmark forks this file (startSandbox) and drives it over IPC: it tells it of the bets already
// reserved and confirmed, then asks for the transactions it applied and the users' balances.
import { fork, type ChildProcess } from 'node:child_process';
import type { SeededBet } from '../src/tools/wallet-sandbox/index.ts';

export const CLIENT = { clientId: 'bench', clientSecret: 'bench-secret-123' };
export const OPENING = { cash: '1000000.00', bonus: '100000.00' };

type SandboxMessage = { seed: SeededBet[] } | { effects: true } | { balances: string[] };

export interface Sandbox {
  child: ChildProcess;
  url: string;
  ask<T>(message: SandboxMessage): Promise<T>;
}

/** Forks the sandbox process; resolves with its URL once it listens. */
export function startSandbox(): Promise<Sandbox> {
  const child = fork(import.meta.filename, [], { env: { ...process.env, SETTLEMENT_BENCH_ROLE: 'sandbox' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(message: SandboxMessage) => new Promise<T>((resolve, reject) => {
    child.once('message', (reply: { error?: string }) => (reply.error ? reject(new Error(reply.error)) : resolve(reply as T)));
    child.send(message);
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve({ child, url: m.url, ask }));
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}

/** The forked process: starts the sandbox, sends its URL, then answers each message in turn. */
async function serveSandbox(): Promise<void> {
  const { startWalletSandbox } = await import('../src/tools/wallet-sandbox/index.ts');
  const sandbox = await startWalletSandbox({
    auth: { kind: 'client_credentials', ...CLIENT, tokenTtlSeconds: 3600 }, latencyMs: Number(process.env.BENCH_WALLET_LATENCY ?? 0),
    openingBalance: OPENING.cash, openingBonus: OPENING.bonus,
  });
  process.on('message', (m: SandboxMessage) => {
    void (async () => {
      if ('seed' in m) return { seeded: (await sandbox.seedBets(m.seed), m.seed.length) };
      if ('effects' in m) return { effects: [...(await sandbox.effects())] };
      return { balances: await Promise.all(m.balances.map(async (id) => [id, await sandbox.balances(id)])) };
    })().then((reply) => process.send!(reply), (error: unknown) => process.send!({ error: String(error) }));
  });
  process.on('SIGTERM', () => void sandbox.close().then(() => process.exit(0)));
  process.send!({ url: sandbox.url });
}

// The benchmark imports this file for startSandbox; only the forked process serves.
if (process.env.SETTLEMENT_BENCH_ROLE === 'sandbox') await serveSandbox();
