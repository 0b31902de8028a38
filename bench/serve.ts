// `wagerline serve` for a benchmark, in a process of its own so its CPU is its own. Node flags for
// it alone come from BENCH_SERVE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": node
// refuses those in NODE_OPTIONS).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Pool as HttpPool } from 'undici';
import type { Pool } from '../src/db/pool.ts';
import { BIN } from '../test/helpers/cli.ts';
import { freePort } from '../test/helpers/net.ts';
import { benchServices } from './services.ts';

export interface Serve {
  child: ChildProcess;
  url: string;
  /** SIGTERM, then waits for the graceful exit (a CPU profile is written then). */
  stop(): Promise<void>;
}

export function startServe(env: Record<string, string>): Promise<Serve> {
  const nodeArgs = (process.env.BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      // The first line that is a JSON object: V8 trace flags may print lines of their own before it.
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
      if (!line) return;
      resolve({
        child,
        url: JSON.parse(line).url,
        stop: async () => {
          if (child.exitCode !== null) return;
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

export interface UploadTarget {
  serve: Serve;
  http: HttpPool;
  tenantId: string;
  /** An access token of an upload client (agency TAB) of a fresh tenant. */
  token: string;
}

/** A serve process (wallet worker off) with an upload client and its token, for the upload benchmarks. */
export async function startUploadTarget(databaseUrl: string, pool: Pool, connections: number): Promise<UploadTarget> {
  const { tenants } = benchServices(pool, databaseUrl);
  const tenant = await tenants.createTenant({ name: 'Bench Bet' });
  const client = await tenants.createClient({ tenantId: tenant.tenant_id, scopes: ['upload'], agencies: ['TAB'] });
  const port = await freePort();
  const serve = await startServe({ DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    WAGERLINE_WALLET_WORKER: 'off', WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64') });
  const http = new HttpPool(serve.url, { connections, pipelining: 1 });
  const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
  const res = await http.request({ path: '/oauth/token', method: 'POST', body: 'grant_type=client_credentials',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' } });
  const { access_token: token } = (await res.body.json()) as { access_token: string };
  return { serve, http, token, tenantId: tenant.tenant_id };
}
