// The secret box seals stored secrets (signing keys, wallet credentials, users' placement tokens):
// what it opens must be exactly what it sealed, under this key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createSecretBox } from './secret-box.ts';

const box = createSecretBox(randomBytes(32));

test('opens what it sealed; another key, an edited ciphertext or an edited tag is refused', () => {
  const sealed = box.seal('wallet-secret');
  assert.equal(box.open(sealed), 'wallet-secret');
  assert.throws(() => createSecretBox(randomBytes(32)).open(sealed));
  const [version, iv, tag, data] = sealed.split('.') as [string, string, string, string];
  const flip = (part: string) => { const b = Buffer.from(part, 'base64url'); b[0]! ^= 1; return b.toString('base64url'); };
  assert.throws(() => box.open([version, iv, tag, flip(data)].join('.')));
  assert.throws(() => box.open([version, iv, flip(tag), data].join('.')));
});

test('a truncated authentication tag is refused: GCM would check only the bytes given', () => {
  const sealed = box.seal('wallet-secret');
  const [version, iv, tag, data] = sealed.split('.') as [string, string, string, string];
  const full = Buffer.from(tag, 'base64url');
  for (const length of [4, 8, 12, 15]) {
    const short = full.subarray(0, length).toString('base64url');
    assert.throws(() => box.open([version, iv, short, data].join('.')), `a ${length}-byte tag was accepted`);
  }
});

test('a value sealed with a binding opens with that binding only, and never as an unbound one (nor the reverse)', () => {
  const sealed = box.seal('wallet-secret', 'tenant-a/client_secret');
  assert.match(sealed, /^v2\./);
  assert.equal(box.open(sealed, 'tenant-a/client_secret'), 'wallet-secret');
  assert.throws(() => box.open(sealed, 'tenant-b/client_secret'));
  assert.throws(() => box.open(sealed));
  assert.throws(() => box.open(`v1${sealed.slice(2)}`), 'relabelled as unbound, the tag still holds the binding');
  const unbound = box.seal('wallet-secret');
  assert.throws(() => box.open(unbound, 'tenant-a/client_secret'));
  assert.throws(() => box.open(`v2${unbound.slice(2)}`, 'tenant-a/client_secret'));
});
