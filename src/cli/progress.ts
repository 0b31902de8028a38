// The upload client's progress bar (docs/upload-client.md): drawn on standard error, and only
// when that is a terminal — redirected to a file or read by CI it would be escape-code noise, and
// standard output carries the one JSON summary, so the bar never goes there.
import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';

/** A stream as cli-progress sees it: a terminal says so with isTTY (process.stderr does). */
export type ProgressStream = Writable & { isTTY?: boolean; columns?: number };

export interface Progress {
  update(doneBets: number): void;
  stop(): void;
}

const NONE: Progress = { update: () => undefined, stop: () => undefined };

/** A bar of bets sent out of `total` on `stream` when it is a terminal; else a no-op. */
export function startProgress(total: number, stream: ProgressStream): Progress {
  if (stream.isTTY !== true) return NONE;
  const bar = new cliProgress.SingleBar({
    stream: stream as NodeJS.WritableStream,
    format: 'upload [{bar}] {percentage}% | {value}/{total} bets | {eta_formatted}',
  }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  return { update: (done) => bar.update(done), stop: () => bar.stop() };
}
