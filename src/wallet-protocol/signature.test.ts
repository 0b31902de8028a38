// The signature every party computes the same way: caller, sandbox and checker share this code, so
// a fixed vector (computed by an independent HMAC implementation) keeps the shared code honest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signature, signatureMatches } from './signature.ts';

const SECRET = 'sign-me-please-0123';
const BODY = '{"amount":12.50}';
const VECTOR = 'v1=b8d316ee76f53e64757a9db1bb69e16b910c3aa22cd44d8668fb050dfa1f9884';

test('the signature of a known body and timestamp is the published HMAC-SHA256 vector', () => {
  assert.equal(signature(SECRET, '1700000000', BODY), VECTOR);
});

test('a signature matches only its own secret, timestamp and exact body', () => {
  assert.ok(signatureMatches(SECRET, '1700000000', BODY, VECTOR));
  assert.ok(!signatureMatches(SECRET, '1700000001', BODY, VECTOR));
  assert.ok(!signatureMatches(SECRET, '1700000000', '{"amount":12.5}', VECTOR));
  assert.ok(!signatureMatches('another-secret-000', '1700000000', BODY, VECTOR));
  assert.ok(!signatureMatches(SECRET, '1700000000', BODY, VECTOR.slice(0, -1)));
});
