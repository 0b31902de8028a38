// The connections of one wallet origin's pool, handed out in the order they were asked for.
// undici queues a request that finds every connection busy and heeds its abort signal only once
// a connection takes it up: a call whose 10-second bound (spec 8) ran out in that queue waited on,
// one connection attempt after another (up to a connect timeout each when the wallet's host stops
// accepting). Waiting here instead, a call leaves the queue the moment its signal aborts, and was
// then certainly never handed to undici: the wallet cannot have received it.

/** Gives a connection back; calling it again does nothing. */
export type Release = () => void;

export interface ConnectionSlots {
  /**
   * A connection of the pool, at once or when one is given back; undefined when `signal` aborts
   * first (the call was never handed over). Waiters are served first come, first served.
   */
  take(signal: AbortSignal): Promise<Release | undefined>;
}

export function connectionSlots(size: number): ConnectionSlots {
  let free = size;
  // Insertion-ordered, and a waiter that gives up leaves it at once (no dead entries to skip).
  const waiting = new Set<(release: Release) => void>();

  function handOn(): void {
    const next = waiting.values().next();
    if (next.done) {
      free++;
      return;
    }
    waiting.delete(next.value);
    next.value(once());
  }

  function once(): Release {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      handOn();
    };
  }

  return {
    take(signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      if (free > 0) {
        free--;
        return Promise.resolve(once());
      }
      return new Promise((resolve) => {
        const granted = (release: Release) => {
          signal.removeEventListener('abort', gaveUp);
          resolve(release);
        };
        const gaveUp = () => {
          waiting.delete(granted);
          resolve(undefined);
        };
        waiting.add(granted);
        signal.addEventListener('abort', gaveUp, { once: true });
      });
    },
  };
}
