// grouped(): items arriving while work of their key runs are done together once it ends; a group
// that fails is done item by item, each item getting its own result or error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grouped } from './grouped.ts';

/** A promise and the functions that settle it. */
function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => { open = resolve; });
  return { promise, open };
}

test('the first item runs alone at once; those arriving meanwhile run together when it ends, up to max a group', async () => {
  const groups: string[][] = [];
  const first = gate<void>();
  const run = grouped<string, string, string>({
    max: 3,
    together: async (_, items) => { groups.push(items); return items.map((i) => i.toUpperCase()); },
    onGroup: (key, size, together) => assert.ok(key === 'k' && (size > 1) === together),
  });
  const alone = (item: string) => async () => { groups.push([item]); await first.promise; return `${item}!`; };
  const results = [run('k', 'a', alone('a')), run('k', 'b', alone('b')), run('k', 'c', alone('c')), run('k', 'd', alone('d')), run('k', 'e', alone('e'))];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(groups, [['a']], 'only the first has started');
  first.open();
  assert.deepEqual(await Promise.all(results), ['a!', 'B', 'C', 'D', 'e!'], 'a group of one runs alone');
  assert.deepEqual(groups, [['a'], ['b', 'c', 'd'], ['e']]);
});

test('keys are grouped apart; a group that fails is done item by item, each with its own result or error', async () => {
  const hold = gate<void>();
  const run = grouped<string, number, number>({
    max: 10,
    together: async (key) => { throw new Error(`group of ${key} failed`); },
  });
  const alone = (n: number) => async () => {
    await hold.promise;
    if (n === 3) throw new Error('three is refused');
    return n * 10;
  };
  const results = [1, 2, 3, 4].map((n) => run('x', n, alone(n)).catch((e: Error) => e.message));
  const other = run('y', 5, alone(5));
  hold.open();
  assert.deepEqual(await Promise.all(results), [10, 20, 'three is refused', 40]);
  assert.equal(await other, 50);
});

test('a group whose work throws at once, or whose onGroup throws, still answers every item, and the key goes on', async () => {
  const hold = gate<void>();
  const run = grouped<string, number, number>({
    max: 10,
    together: (() => { throw new Error('thrown before any promise'); }) as never,
    onGroup: () => { throw new Error('a metric failed'); },
  });
  const errors: unknown[] = [];
  const alone = (n: number) => async (groupError?: unknown) => {
    await hold.promise;
    if (groupError) errors.push(groupError);
    return n;
  };
  const results = [1, 2, 3].map((n) => run('k', n, alone(n)));
  hold.open();
  assert.deepEqual(await Promise.all(results), [1, 2, 3]);
  assert.deepEqual(errors.map((e) => (e as Error).message), ['thrown before any promise', 'thrown before any promise'], 'the group\'s error is handed to its items');
  assert.equal(await run('k', 4, alone(4)), 4, 'a later item of the key is answered');
});

test('nameOf: the same object, the same name; another object, another', async () => {
  const { nameOf } = await import('./grouped.ts');
  const a = {};
  assert.equal(nameOf(a), nameOf(a));
  assert.notEqual(nameOf(a), nameOf({}));
});
