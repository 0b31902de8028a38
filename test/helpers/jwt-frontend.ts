// An app listening on 127.0.0.1 with one tenant whose frontend users sign in with RS256 tokens of
// a test JWKS (jwt mode, docs/frontend.md): what the tests of /graphql over real HTTP and
// WebSocket start from.
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestAppOptions, type TestContext } from './app.ts';
import { TestJwks } from './jwks.ts';

export interface JwtFrontend {
  ctx: TestContext;
  idp: TestJwks;
  tenantId: string;
  /** http://127.0.0.1:<port> */
  base: string;
  close(): Promise<void>;
}

/** `env`: settings of the app (as createTestApp takes them). */
export async function jwtFrontend(tenantName: string, options: TestAppOptions = {}, env: Record<string, string> = {}): Promise<JwtFrontend> {
  const [ctx, idp] = await Promise.all([createTestApp(env, options), TestJwks.start()]);
  const tenantId = (await ctx.tenants.createTenant({ name: tenantName })).tenant_id;
  await ctx.services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: idp.url, clientId: idp.clientId });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  return { ctx, idp, tenantId, base, close: async () => { await ctx.close(); await idp.close(); } };
}
