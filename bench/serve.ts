// `wagerline serve` for a benchmark, in a process of its own so its CPU is its own. Node flags for
// it alone come from BENCH_SERVE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": node
// refuses those in NODE_OPTIONS).
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../test/helpers/cli.ts';

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
      if (!out.includes('\n')) return;
      resolve({
        child,
        url: JSON.parse(out.slice(0, out.indexOf('\n'))).url,
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
