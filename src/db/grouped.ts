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

const names = new WeakMap<object, number>();
let named = 0;

/** A number naming `owner` (a caller's group object) for string keys: the same object, the same number. */
export function nameOf(owner: object): number {
  let name = names.get(owner);
  if (name === undefined) names.set(owner, (name = ++named));
  return name;
}

/** Does the item alone: at once, for a group of one, or after its group failed with `groupError`. */
export type Alone<O> = (groupError?: unknown) => Promise<O>;

interface Waiting<I, O> {
  item: I;
  alone: Alone<O>;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/** `work()` as a promise, a synchronous throw included. */
function started<O>(work: () => Promise<O>): Promise<O> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Returns `run(key, item, alone)`: the item's result, done with the others of `key` waiting then,
 * or by `alone()`. Keys are compared as Map keys: the same key, the same queue.
 */
export function grouped<K, I, O>(options: GroupedOptions<K, I, O>) {
  const queues = new Map<K, Array<Waiting<I, O>>>();

  /** The group's results, or why it failed; never throws. */
  async function together(key: K, batch: Array<Waiting<I, O>>): Promise<{ results?: O[]; error?: unknown }> {
    try {
      const results = await options.together(key, batch.map((w) => w.item));
      return results ? { results } : { error: new Error('the group was not done') };
    } catch (error) {
      return { error };
    }
  }

  async function drain(key: K, queue: Array<Waiting<I, O>>): Promise<void> {
    for (;;) {
      const batch = queue.splice(0, options.max);
      if (!batch.length) {
        queues.delete(key);
        return;
      }
      // A group of one runs alone at once, in this tick, as it would without grouping.
      const { results, error } = batch.length > 1 ? await together(key, batch) : {};
      try {
        options.onGroup?.(key, batch.length, results !== undefined);
      } catch {
        // Metrics only: the items' results do not depend on it.
      }
      if (results) batch.forEach((w, i) => w.resolve(results[i]!));
      else await Promise.all(batch.map((w) => started(() => w.alone(error)).then(w.resolve, w.reject)));
    }
  }

  return function run(key: K, item: I, alone: Alone<O>): Promise<O> {
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
