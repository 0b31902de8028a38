// whileActive (bet-updates.ts): a subscription's updates pass while its subscriber is still
// admitted; the first update after that ends it and closes the source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { whileActive } from './bet-updates.ts';

/** An iterator over `items` that records whether it was closed. */
function source(items: number[]) {
  let i = 0;
  const state = { closed: false };
  const it: AsyncIterableIterator<number> = {
    next: async () => (i < items.length ? { done: false, value: items[i++]! } : { done: true, value: undefined }),
    return: async () => { state.closed = true; return { done: true, value: undefined }; },
    [Symbol.asyncIterator]: () => it,
  };
  return { it, state };
}

test('items pass while active; the first one after that ends the iteration and closes the source', async () => {
  const { it, state } = source([1, 2, 3, 4]);
  let active = true;
  const seen: number[] = [];
  for await (const n of whileActive(it, async () => active)) {
    seen.push(n);
    if (n === 2) active = false;
  }
  assert.deepEqual([seen, state.closed], [[1, 2], true]);
});

test('a check that fails lets the item through (the next one checks again)', async () => {
  const { it } = source([1, 2]);
  let calls = 0;
  const seen: number[] = [];
  for await (const n of whileActive(it, async () => { calls += 1; if (calls === 1) throw new Error('database away'); return true; })) seen.push(n);
  assert.deepEqual([seen, calls], [[1, 2], 2]);
});

test('return() closes the source at once', async () => {
  const { it, state } = source([1]);
  await whileActive(it, async () => true).return!();
  assert.equal(state.closed, true);
});
