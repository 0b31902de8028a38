// Measurement helpers shared by the benchmarks: CPU time of other processes and of the whole
// machine (from /proc), the time a pool's clients wait on each kind of statement, percentiles and
// number formatting.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Pool } from '../src/db/pool.ts';

/** `v` rounded to `places` decimals. */
export const round = (v: number, places = 2) => Math.round(v * 10 ** places) / 10 ** places;

/** `n` with thousands separators, as the figures are quoted in docs/performance-*.md. */
export const fmt = (n: number) => n.toLocaleString('en-US');

/** A comma-separated list of numbers from the environment variable `name` (BENCH_CONCURRENCY=1,8), else `fallback`. */
export const numbersFromEnv = (name: string, fallback: number[]): number[] =>
  (process.env[name] ? process.env[name]!.split(',').map(Number) : fallback);

/** The p-th percentile of ascending `sorted` (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** CPU seconds (user + system) of each process named, from /proc (USER_HZ = 100 on Linux). */
export function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      // The fields after the command name, which is in parentheses and may itself hold ") ".
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // gone
    }
  }
  return out;
}

export type CpuMeter = Awaited<ReturnType<typeof cpuMeter>>;

/**
 * CPU used since `since()` (or the meter's creation) by the processes `pids()` names, summed per
 * process. A process started meanwhile counts from zero. One that ended meanwhile counts up to the
 * last reading of it (`sample()` or `used()`): /proc forgets a process once it exits, so a run
 * whose processes come and go (connections closed when idle, autovacuum workers) samples now and
 * then.
 */
export async function cpuMeter(pids: () => Promise<number[]> | number[]) {
  let base = cpuOf(await pids());
  let last = new Map(base);
  const sample = async () => {
    for (const [pid, s] of cpuOf(await pids())) last.set(pid, s);
  };
  return {
    async since() {
      base = cpuOf(await pids());
      last = new Map(base);
    },
    sample,
    async used() {
      await sample();
      return [...last].reduce((sum, [pid, s]) => sum + s - (base.get(pid) ?? 0), 0);
    },
  };
}

/**
 * Pids for cpuMeter of PostgreSQL's processes: the client backends of `db`'s database (`db`'s own
 * left out: it measures), and the server's background processes (walwriter, checkpointer,
 * autovacuum…), which serve every database and so are counted apart.
 */
export function postgresPids(db: pg.Client) {
  const pids = async (sql: string) => (await db.query<{ pid: number }>(sql)).rows.map((r) => r.pid);
  return {
    backends: () => pids("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"),
    background: () => pids("SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend'"),
  };
}

/** Busy and total jiffies of the whole machine, all cores (/proc/stat's first line). */
export function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/**
 * The CPU of one run, from now until `per(n)`: each named process's (meters started now), this
 * process's as `load_generator`, their `total`, in ms per unit of `n`; and the share of both cores
 * busy. The meters are read each second so a process that ended meanwhile still counts (/proc
 * forgets it); a failed reading only loses that reading. The timer is unref'd so a failed run exits.
 */
export async function runCpu<K extends string>(pids: Record<K, () => Promise<number[]> | number[]>) {
  const names = Object.keys(pids) as K[];
  const meters = Object.fromEntries(await Promise.all(names.map(async (k) => [k, await cpuMeter(pids[k])] as const))) as Record<K, CpuMeter>;
  let sampling = Promise.resolve();
  const sampler = setInterval(() => {
    sampling = sampling.then(async () => {
      for (const k of names) await meters[k].sample();
    }).catch(() => undefined);
  }, 1000).unref();
  const ticks0 = machineTicks();
  const self0 = process.cpuUsage();
  return {
    async per(n: number) {
      const self = process.cpuUsage(self0);
      const ticks1 = machineTicks();
      clearInterval(sampler);
      await sampling;
      const ms = (seconds: number) => round((seconds * 1000) / n, 3);
      const cpu = {} as Record<K | 'load_generator' | 'total', number>;
      for (const k of names) cpu[k] = ms(await meters[k].used());
      cpu.load_generator = ms((self.user + self.system) / 1e6);
      cpu.total = round(names.reduce((sum, k) => sum + cpu[k], cpu.load_generator), 3);
      return { cpu, busy: round((ticks1.busy - ticks0.busy) / (ticks1.total - ticks0.total), 2) };
    },
  };
}

export interface Timed { n: number; ms: number }
export type StatementTimer = ReturnType<typeof timeStatements>;

/**
 * Times every statement of the pool's clients by kind while `state.on`: a named statement by its
 * name, else by `kindOfText(text)`, else by its first 60 characters. `method` times calls of an
 * object's method the same way (the statements they run are timed too, by their own kind).
 */
export function timeStatements(pool: Pool, kindOfText: (text: string) => string | undefined = () => undefined) {
  const stats = new Map<string, Timed>();
  const state = { on: false };
  const record = (kind: string, start: number) => {
    const s = stats.get(kind) ?? { n: 0, ms: 0 };
    s.n += 1;
    s.ms += performance.now() - start;
    stats.set(kind, s);
  };
  const kindOf = (q: unknown): string => {
    if (typeof q === 'object' && q && 'name' in q && (q as { name?: string }).name) return (q as { name: string }).name;
    const text = typeof q === 'string' ? q : (q as { text: string }).text;
    return kindOfText(text) ?? text.replace(/\s+/g, ' ').slice(0, 60);
  };
  const wrap = (client: pg.PoolClient & { timed?: boolean }) => {
    if (client.timed) return client;
    client.timed = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (!state.on || !(result instanceof Promise)) return result;
      const start = performance.now();
      const kind = kindOf(args[0]);
      return result.finally(() => record(kind, start));
    };
    return client;
  };
  // Every client the pool hands out, whether asked for with a callback (pool.query) or a promise.
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    const callback = args[0] as ((err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) | undefined;
    if (callback) return connect((err: Error | undefined, client: pg.PoolClient, done: unknown) => callback(err, client && wrap(client), done));
    return (connect() as Promise<pg.PoolClient>).then(wrap);
  };
  const method = <T extends object>(obj: T, name: keyof T & string, kind: string) => {
    const fn = (obj[name] as (...args: unknown[]) => Promise<unknown>).bind(obj);
    (obj as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      if (!state.on) return fn(...args);
      const start = performance.now();
      try {
        return await fn(...args);
      } finally {
        record(kind, start);
      }
    };
  };
  return { stats, state, method };
}
