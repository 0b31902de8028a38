// Two rereads of the wallet configurations overlapping in one worker, answered out of order: the
// one that read before set-wallet moved the tenant lands after the one that read the move. The
// worker must not go back to the old configuration, and a call claimed under the new one must not
// go to the old URL. The order is forced by holding back the answers of chosen statements (every
// statement still runs on PostgreSQL); real HTTP to two sandboxes on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Pool, Tx } from '../src/db/pool.ts';
import type { EnqueuedCall, WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testServices } from './helpers/app.ts';
import { reserveAndConfirm, until, movingWalletFixture, type MovingFixture, type WalletFixture } from './wallet-fixtures.ts';

let m: MovingFixture;
let f: WalletFixture;
let moved: WalletSandbox;
before(async () => {
  m = await movingWalletFixture();
  ({ f, moved } = m);
});
after(() => m.close());

const pointAt = (url: string) => m.pointAt(url);
const opsAt = (wallet: WalletSandbox, betId: string) =>
  wallet.requests().filter((r) => (r.body as Record<string, unknown> | undefined)?.betId === betId).map((r) => r.op);

type Match = (text: string, values: unknown[]) => boolean;
interface Hold { match: Match; reached: Promise<void>; release(): void }

/**
 * The pool, its query() answers held back for the first statement each armed hold matches: the
 * statement runs at once; its answer is handed on only when the test releases the hold.
 */
function holdingPool(pool: Pool) {
  const armed: Array<Hold & { hit(): void; held: Promise<void> }> = [];
  const query = (config: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    const args = values ?? (typeof config === 'string' ? [] : config.values ?? []);
    const answer = (pool.query as (c: unknown, v?: unknown[]) => Promise<unknown>)(config, values);
    const i = armed.findIndex((h) => h.match(text, args));
    if (i < 0) return answer;
    const [hold] = armed.splice(i, 1);
    hold!.hit();
    return answer.then(async (result) => {
      await hold!.held;
      return result;
    });
  };
  const proxy = new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    pool: proxy,
    hold(match: Match): Hold {
      let hit!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => { hit = resolve; });
      const held = new Promise<void>((resolve) => { release = resolve; });
      const hold = { match, reached, release, hit, held };
      armed.push(hold);
      return hold;
    },
  };
}

/** The promise, or a failure naming what did not happen within 10 s (rather than a test that hangs). */
async function within(what: string, promise: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`not within 10 s: ${what}`)), 10_000); });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A placement's take step that queues the bet's confirm, to be sent at commit by the placing process. */
const confirmAtCommit = (confirm: WalletCallInput) => ({ take: { context: undefined, group: {
  take: (_tx: Tx, _contexts: unknown[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>) => queueNext([confirm]),
} } });

test('a reread answered late with the configuration before the move neither moves the worker back nor sends a confirm to the old URL', async () => {
  await pointAt(f.sandbox.url);
  const db = holdingPool(f.db.pool);
  const services = testServices({ ...f.db, pool: db.pool }, f.box, {
    settings: { ...f.settings, WAGERLINE_WALLET_POLL_MS: 600_000 }, clock: f.clock, listenUrl: f.db.url,
  });
  const worker = services.wallet.createWorker();
  await worker.start(); // it reads the old configuration
  const isReread: Match = (text) => text.startsWith('SELECT * FROM wallet_configs ORDER BY');
  const early = db.hold(isReread);
  let draining: Promise<void> | undefined;
  try {
    // A reread starts (drain's), reads the old configuration, and its answer is held.
    draining = worker.drain();
    await within('the reread started', early.reached);
    // The move; a placement: its reserve goes to the new URL and its confirm is queued `pending`
    // (the worker holds the old version). The worker's claim naming the old version is refused, it
    // rereads (the new configuration) and claims naming the new version: that claim's answer is held.
    const { updated_at: version } = await pointAt(moved.url);
    const newClaim = db.hold((text, values) => text.startsWith('SELECT * FROM wallet_claim') && values[6] === version);
    const b = reserveAndConfirm(f.tenantId);
    assert.equal((await services.wallet.reserve(b.input, confirmAtCommit(b.confirm))).outcome, 'reserved');
    await within('a claim naming the new version', newClaim.reached);
    // The early reread (the old configuration) lands while the confirm's claim is answered.
    early.release();
    await new Promise(setImmediate); // its answer is applied before the next I/O event: the claim answer's
    newClaim.release();
    const confirm = async () => (await f.wallet.callsOfBet(b.betId)).calls.find((c) => c.op === 'confirm');
    await until('the confirm answered', async () => ['delivered', 'failed'].includes((await confirm())?.status ?? ''));
    assert.deepEqual([opsAt(f.sandbox, b.betId), opsAt(moved, b.betId)], [[], ['reserve', 'confirm']]);
    assert.equal((await confirm())?.status, 'delivered');
  } finally {
    early.release();
    await draining?.catch(() => undefined);
    await worker.stop();
    await services.close();
  }
});
