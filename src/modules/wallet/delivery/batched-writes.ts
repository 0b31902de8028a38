// The worker's results are written in batches: whatever finished while a batch was being written
// goes in the next one. Each item's `add` resolves once its batch is written, so its sender holds
// the call (and renews its lease) until then: a result heard is never left to a lease that runs
// out while it waits (another sender would ask the wallet again, and a wallet that refuses the
// replay would hide what it holds). A batch whose write fails is tried again after a pause, up to
// `tries` times; then its items are given up, left to their leases (sent again: at-least-once).

export interface BatchedWritesOptions<T> {
  write: (items: T[]) => Promise<void>;
  pauseMs: number;
  tries: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

interface Pending<T> {
  item: T;
  done: () => void;
  failures: number;
}

export function batchedWrites<T>(options: BatchedWritesOptions<T>) {
  let queue: Array<Pending<T>> = [];
  let flushing: Promise<void> | undefined;

  async function writeOnce(batch: Array<Pending<T>>): Promise<void> {
    try {
      await options.write(batch.map((p) => p.item));
      for (const p of batch) p.done();
    } catch (error) {
      options.log('recording wallet results failed', { err: String(error), calls: batch.length });
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      for (const p of batch) {
        p.failures += 1;
        if (p.failures < options.tries) queue.push(p);
        else p.done();
      }
    }
  }

  function flush(): void {
    if (flushing) return;
    flushing = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      while (queue.length) {
        const batch = queue;
        queue = [];
        await writeOnce(batch);
      }
    })().finally(() => {
      flushing = undefined;
      if (queue.length) flush();
    });
  }

  return {
    /** Queues `item` for the next batch; resolves once it is written (or given up). */
    add(item: T): Promise<void> {
      return new Promise((done) => {
        queue.push({ item, done, failures: 0 });
        flush();
      });
    },
    /** The batch being written, if any. */
    flushing: (): Promise<void> | undefined => flushing,
  };
}
