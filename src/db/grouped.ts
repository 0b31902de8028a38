// Work for items that arrive while earlier work of the same key is running is done for all of them
// at once, when it ends: the first item runs at once (alone), the items that arrive meanwhile wait
// and then run as one group, and so on. Nothing waits for a timer, so one item at a time costs no
// more than before, and groups grow with the load. A group that fails runs again item by item, so
// each item gets the result or the error it would have had alone.

export interface GroupedOptions<K, I, O> {
  /** The work for many items of `key`; undefined (or a throw) when it failed: then each runs alone. */
  together: (key: K, items: I[]) => Promise<O[] | undefined>;
  /** Most items in one group. */
  max: number;
  /** Told of each group run: its size, and whether it was done together. */
  onGroup?: (key: K, size: number, together: boolean) => void;
}

interface Waiting<I, O> {
  item: I;
  alone: () => Promise<O>;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/** Returns `run(key, item, alone)`: the item's result, done with the others of `key` waiting then, or by `alone()`. */
export function grouped<K, I, O>(options: GroupedOptions<K, I, O>) {
  const queues = new Map<K, Array<Waiting<I, O>>>();

  async function drain(key: K, queue: Array<Waiting<I, O>>): Promise<void> {
    for (;;) {
      const batch = queue.splice(0, options.max);
      if (!batch.length) {
        queues.delete(key);
        return;
      }
      const results = batch.length > 1 ? await options.together(key, batch.map((w) => w.item)).catch(() => undefined) : undefined;
      options.onGroup?.(key, batch.length, results !== undefined);
      if (results) batch.forEach((w, i) => w.resolve(results[i]!));
      else await Promise.all(batch.map((w) => w.alone().then(w.resolve, w.reject)));
    }
  }

  return function run(key: K, item: I, alone: () => Promise<O>): Promise<O> {
    return new Promise((resolve, reject) => {
      const waiting = { item, alone, resolve, reject };
      const queue = queues.get(key);
      if (queue) {
        queue.push(waiting);
        return;
      }
      const fresh = [waiting];
      queues.set(key, fresh);
      void drain(key, fresh);
    });
  };
}
