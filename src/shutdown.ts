// How `serve` stops (src/main.ts, docs/operations.md "Processes"). The first SIGTERM or SIGINT
// stops it gracefully: while starting, after the migration in progress (`requested`); while
// serving, by the server's own stop. Later signals are logged and change nothing. Either way the
// stop is bounded by WAGERLINE_SHUTDOWN_TIMEOUT_MS: past it whatever is left is cut (`deadline`),
// one line says what, and the process exits 1. Cutting is what a crash does, and every piece of
// work survives a crash (wallet calls are leased rows of the outbox, bets and settlements are
// transactions): the deadline only makes it bounded, and said.
import type { Logger } from './log.ts';

/** What a serving process stops and cuts. */
export interface Stoppable {
  /** The graceful stop: resolves once everything is finished and closed. */
  stop(): Promise<void>;
  /** Closes what is left at once and says what it was (the fields of the log line). */
  cut(): Record<string, unknown>;
}

export interface ShutdownOptions {
  log: Logger;
  /** WAGERLINE_SHUTDOWN_TIMEOUT_MS. */
  deadlineMs: number;
  /** While starting, how long the cancel of the migration in progress may take before the process exits anyway. */
  graceMs: number;
  exit?: (code: number) => void;
}

export function createShutdown(options: ShutdownOptions) {
  const { log, deadlineMs } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const requested = new AbortController();
  const deadline = new AbortController();
  let server: Stoppable | undefined;
  let signalled: NodeJS.Signals | undefined;

  function stopServing(s: Stoppable): void {
    s.stop().then(
      () => exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  }

  function onDeadline(): void {
    deadline.abort();
    if (server) {
      log.error({ deadlineMs, ...server.cut() }, 'shutdown deadline passed: cut what was left');
      exit(1);
      return;
    }
    // Still starting: the migration in progress is being cancelled, and the start then fails with
    // a line of its own. Should the cancel itself hang (the database silent), exit regardless.
    setTimeout(() => {
      log.error({ deadlineMs }, 'shutdown deadline passed while starting: exiting');
      exit(1);
    }, options.graceMs);
  }

  function onSignal(signal: NodeJS.Signals): void {
    // Every signal is handled, not just the first: left without a listener, a second SIGINT or
    // SIGTERM would kill the process mid-shutdown (Node's default), and one often comes — `npm
    // start` relays Ctrl-C to serve, which the terminal already sent it. SIGKILL stops it at once.
    if (signalled) {
      log.info({ signal }, 'already shutting down');
      return;
    }
    signalled = signal;
    log.info({ signal, deadlineMs }, 'shutting down');
    requested.abort(signal);
    setTimeout(onDeadline, deadlineMs);
    if (server) stopServing(server);
  }

  return {
    /** Aborted by the first signal: a start in progress stops after the migration it is applying. */
    requested: requested.signal,
    /** Aborted once the deadline passed: a migration in progress is cancelled. */
    deadline: deadline.signal,
    /** The first signal received, if any. */
    signal: (): NodeJS.Signals | undefined => signalled,
    listen(): void {
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    },
    /** From now on a signal stops `s`; false when one came already (then `s` is being stopped). */
    serving(s: Stoppable): boolean {
      server = s;
      if (!signalled) return true;
      stopServing(s);
      return false;
    },
  };
}

export type Shutdown = ReturnType<typeof createShutdown>;
