import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrlCredentials } from './redact-url.ts';

test('a URL\'s query values and user info are redacted; names, host and path are kept', () => {
  const cases: Array<[string, string]> = [
    ['https://wallet.example.com/api', 'https://wallet.example.com/api'],
    ['https://ops:s3cret@wallet.example.com/api?api_key=k3y&flag', 'https://[Redacted]@wallet.example.com/api?api_key=[Redacted]&[Redacted]'],
    // Not URLs (quoted when refused as such): no scheme, a password holding "/" or "@", a space.
    ['ops:s3cret@wallet.example.com/api', '[Redacted]@wallet.example.com/api'],
    ['https://ops:s3/cr@t@wallet.example.com/api', 'https://[Redacted]@wallet.example.com/api'],
    ['https://ops:s3 cret@wallet example.com', 'https://[Redacted]@wallet example.com'],
    // An "@" in the query is the query's: redacted as a value, the host shown.
    ['https://wallet.example.com/api?to=a@b', 'https://wallet.example.com/api?to=[Redacted]'],
    ['not a url', 'not a url'],
  ];
  for (const [raw, shown] of cases) assert.equal(redactUrlCredentials(raw), shown, raw);
});
