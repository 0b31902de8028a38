// The client's address (a bet's ip_address, the token endpoint's rate limit, the logs) behind a
// reverse proxy: read from X-Forwarded-For only when WAGERLINE_TRUST_PROXY trusts who connects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestApp } from '../../test/helpers/app.ts';

async function addressesSeen(trust: string | undefined) {
  const ctx = await createTestApp(trust === undefined ? {} : { WAGERLINE_TRUST_PROXY: trust }, {
    routes: (app) => app.get('/probe-ip', async (request) => ({ ip: request.ip })),
  });
  try {
    const ip = async (remoteAddress: string, forwarded?: string) =>
      (await ctx.app.inject({ method: 'GET', url: '/probe-ip', remoteAddress, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} })).json().ip;
    return {
      fromProxy: await ip('10.1.2.3', '203.0.113.9'),
      chain: await ip('10.1.2.3', '198.51.100.4, 203.0.113.9'),
      fromElsewhere: await ip('192.0.2.5', '203.0.113.9'),
    };
  } finally {
    await ctx.close();
  }
}

test('off (the default): the address of whoever connects; X-Forwarded-For is ignored', async () => {
  assert.deepEqual(await addressesSeen(undefined), { fromProxy: '10.1.2.3', chain: '10.1.2.3', fromElsewhere: '192.0.2.5' });
});

test('a trusted proxy range: the client it names; anyone else cannot forge one', async () => {
  // In the chain only the last hop is the trusted proxy's word; 203.0.113.9 is not trusted to name another.
  assert.deepEqual(await addressesSeen('10.0.0.0/8'), { fromProxy: '203.0.113.9', chain: '203.0.113.9', fromElsewhere: '192.0.2.5' });
});

test('two trusted ranges: each hop is believed only when it comes from one of them', async () => {
  // 198.51.100.4 is named by 203.0.113.9, which is trusted here too: the client is the hop before it.
  assert.deepEqual(await addressesSeen('10.0.0.0/8,203.0.113.0/24'), { fromProxy: '203.0.113.9', chain: '198.51.100.4', fromElsewhere: '192.0.2.5' });
});
