// The upload client's progress bar: drawn on a terminal, absent when standard error is redirected
// (test/upload-client.test.ts checks the real CLI's piped stderr stays empty).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { startProgress, type ProgressStream } from './progress.ts';

function capture(isTTY: boolean): { stream: ProgressStream; text: () => string } {
  let out = '';
  const stream: ProgressStream = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  if (isTTY) Object.assign(stream, { isTTY: true, columns: 120 });
  return { stream, text: () => out };
}

test('on a terminal: a bar of bets sent out of the total, redrawn in place, final count on stop', () => {
  const tty = capture(true);
  const bar = startProgress(2500, tty.stream);
  assert.match(tty.text(), /upload \[░+\] 0% \| 0\/2500 bets/);
  bar.update(1000);
  bar.stop();
  // The last frame drawn is the state at stop (updates in between are throttled).
  const frames = tty.text().split('upload [').length - 1;
  assert.match(tty.text(), /upload \[█+░+\] 40% \| 1000\/2500 bets/);
  assert.ok(frames >= 2, `drawn at start and at stop, got ${frames} frames`);
  assert.ok(tty.text().includes('\x1B['), 'redrawn in place with terminal control sequences');
});

test('not a terminal (a file, a pipe, CI): nothing is written', () => {
  const pipe = capture(false);
  const bar = startProgress(10, pipe.stream);
  bar.update(5);
  bar.stop();
  assert.equal(pipe.text(), '');
});
