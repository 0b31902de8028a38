import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackofficeClient } from '../tenants/tenants.service.ts';
import { cachedClientLookup } from './backoffice.service.ts';

const client = (id: string): BackofficeClient => ({ client_id: id, tenant_id: 't', scopes: ['backoffice'], tenant_ids: ['t'] });

/** A lookup over `known` that counts its calls, and a clock moved by hand. */
function setup(known: Map<string, BackofficeClient>, options: { ttlMs?: number; max?: number } = {}) {
  let now = 0;
  const calls: string[] = [];
  const lookup = cachedClientLookup(async (key) => {
    calls.push(key);
    if (key === 'broken') throw new Error('connection lost');
    return known.get(key);
  }, { ttlMs: options.ttlMs ?? 1000, clock: () => new Date(now), ...(options.max && { max: options.max }) });
  return { lookup, calls, advance: (ms: number) => { now += ms; } };
}

test('a client found is reused until the TTL has passed, then read again', async () => {
  const known = new Map([['a', client('a')]]);
  const { lookup, calls, advance } = setup(known);
  assert.equal((await lookup('a'))?.client_id, 'a');
  known.delete('a');
  advance(999);
  assert.equal((await lookup('a'))?.client_id, 'a');
  advance(1);
  assert.equal(await lookup('a'), undefined);
  assert.deepEqual(calls, ['a', 'a']);
});

test('unknown keys and failed lookups are not kept', async () => {
  const known = new Map<string, BackofficeClient>();
  const { lookup, calls } = setup(known);
  assert.equal(await lookup('b'), undefined);
  known.set('b', client('b'));
  assert.equal((await lookup('b'))?.client_id, 'b');
  await assert.rejects(lookup('broken'), /connection lost/);
  await assert.rejects(lookup('broken'), /connection lost/);
  assert.deepEqual(calls, ['b', 'b', 'broken', 'broken']);
});

test('requests arriving together share one lookup', async () => {
  const { lookup, calls } = setup(new Map([['a', client('a')]]));
  const found = await Promise.all([lookup('a'), lookup('a'), lookup('a')]);
  assert.deepEqual(found.map((c) => c?.client_id), ['a', 'a', 'a']);
  assert.deepEqual(calls, ['a']);
});

test('at most `max` clients are kept, the oldest dropped first; a TTL of 0 keeps none', async () => {
  const known = new Map(['a', 'b', 'c'].map((id) => [id, client(id)]));
  const bounded = setup(known, { max: 2 });
  for (const id of ['a', 'b', 'c', 'c', 'b', 'a']) await bounded.lookup(id);
  assert.deepEqual(bounded.calls, ['a', 'b', 'c', 'a']);
  const none = setup(known, { ttlMs: 0 });
  for (const id of ['a', 'a']) await none.lookup(id);
  assert.deepEqual(none.calls, ['a', 'a']);
});
