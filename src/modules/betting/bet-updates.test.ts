// Bet updates over a real PostgreSQL LISTEN: the process listens only while it has subscribers,
// and announcements made meanwhile reach the subscribers whose filter takes them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { GraphQLError } from 'graphql';
import type { AppError } from '../../errors.ts';
import { endingWith } from '../../http/live-connection.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { BET_UPDATES_CHANNEL } from './betting.queries.ts';
import { createBetUpdates, type BetUpdate } from './bet-updates.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

const update = (userId: string, status = 'accepted'): BetUpdate => ({ tenant_id: randomUUID(), bet_id: randomUUID(), user_id: userId, status });
const announce = (u: BetUpdate) => db.pool.query('SELECT pg_notify($1, $2)', [BET_UPDATES_CHANNEL, JSON.stringify(u)]);

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('LISTEN is in place only while there are subscribers, and again for a later one', async () => {
  const updates = createBetUpdates({ listenUrl: db.url });
  try {
    assert.equal(updates.listening(), false, 'nobody subscribed: not listening');
    const user = randomUUID();
    const first = await updates.stream((u) => u.user_id === user);
    assert.equal(updates.listening(), true);
    const mine = update(user);
    await announce(update(randomUUID())); // another user's: filtered out
    await announce(mine);
    assert.deepEqual((await first.next()).value, mine);
    await first.return!();
    await until(() => !updates.listening());
    assert.equal(updates.subscribers(), 0);

    const second = await updates.stream((u) => u.user_id === user);
    assert.equal(updates.listening(), true, 'a later subscriber listens again');
    const next = update(user, 'settled');
    await announce(next);
    assert.deepEqual((await second.next()).value, next);
    await second.return!();
  } finally {
    await updates.close();
  }
  assert.equal(updates.listening(), false);
});

test('a subscriber that leaves while another stays keeps the LISTEN', async () => {
  const updates = createBetUpdates({ listenUrl: db.url });
  try {
    const user = randomUUID();
    const staying = await updates.stream((u) => u.user_id === user);
    const leaving = await updates.stream(() => true);
    await leaving.return!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(updates.listening(), true);
    const mine = update(user);
    await announce(mine);
    assert.deepEqual((await staying.next()).value, mine);
  } finally {
    await updates.close();
  }
});

test('a subscriber more than maxQueue updates behind ends with subscriber_too_slow, which its endpoint sends with a code', async () => {
  const updates = createBetUpdates({ listenUrl: db.url, maxQueue: 2 });
  try {
    const user = randomUUID();
    let ended = 0;
    const coded = (error: unknown) => new GraphQLError((error as Error).message, { extensions: { code: (error as AppError).code.toUpperCase() } });
    const stream = endingWith(await updates.stream((u) => u.user_id === user), () => ended++, coded);
    for (let i = 0; i < 3; i++) await announce(update(user));
    await until(() => updates.subscribers() === 0);
    const failure = await stream.next().then(() => undefined, (error: unknown) => error);
    assert.ok(failure instanceof GraphQLError, String(failure));
    assert.equal(failure.extensions.code, 'SUBSCRIBER_TOO_SLOW');
    assert.match(failure.message, /more than 2 bet updates waited/);
    assert.equal(ended, 1, 'its place on the connection is given back');
  } finally {
    await updates.close();
  }
});
