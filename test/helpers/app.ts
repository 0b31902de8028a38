// A wagerline app on a fresh database, for integration tests: app.inject() or app.listen().
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createSecretBox, type SecretBox } from '../../src/crypto/secret-box.ts';
import { ensureSigningKey } from '../../src/modules/auth/signing-keys.ts';
import type { TokenService } from '../../src/modules/auth/tokens.service.ts';
import type { TenantService } from '../../src/modules/tenants/tenants.service.ts';
import { createServices, type ServiceDeps, type Services } from '../../src/services.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

export interface TestContext {
  app: FastifyInstance;
  db: TestDatabase;
  config: Config;
  box: SecretBox;
  services: Services;
  tokens: TokenService;
  tenants: TenantService;
  clock: TestClock;
  close(): Promise<void>;
}

/** A clock tests move by hand; starts at the real time. */
export interface TestClock {
  (): Date;
  advance(ms: number): void;
  set(date: Date): void;
}

export function testClock(start = new Date()): TestClock {
  let now = start.getTime();
  const clock = (() => new Date(now)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  clock.set = (date) => {
    now = date.getTime();
  };
  return clock;
}

/** Every service on a test database, as the composition root builds them; `settings` override the configuration. */
export function testServices(db: TestDatabase, box: SecretBox, options: Omit<ServiceDeps, 'config' | 'db' | 'box'> & { settings?: Partial<Config> } = {}): Services {
  const { settings, ...rest } = options;
  const config: Config = { ...loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }), ...settings };
  return createServices({ config, db: db.pool, box, ...rest });
}

export interface TestAppOptions {
  /** Extra routes a test registers before the app is ready (e.g. a probe behind authenticate()). */
  routes?: (app: FastifyInstance) => void;
  /** pino options for the app's logger (default: no logs), e.g. {level: 'info', stream} to read them. */
  logger?: Record<string, unknown>;
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestContext> {
  const db = await freshDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64'),
    ...env,
  });
  const box = createSecretBox(config.WAGERLINE_SECRET_KEY!);
  await ensureSigningKey(db.pool, box);
  const clock = testClock();
  const services = createServices({ config, db: db.pool, box, clock });
  const { tokens } = services;
  await tokens.refresh();
  const app = await buildApp({ config, db: db.pool, services, logger: options.logger ?? false });
  options.routes?.(app);
  await app.ready();
  return {
    app,
    db,
    config,
    box,
    services,
    tokens,
    tenants: services.tenants,
    clock,
    close: async () => {
      await app.close();
      await services.close();
      await db.drop();
    },
  };
}

/** The services (no HTTP) on a fresh database of their own, with a random secret key; close() ends both. */
export async function servicesOnFreshDatabase(): Promise<{ db: TestDatabase; services: Services; close(): Promise<void> }> {
  const db = await freshDatabase();
  const services = testServices(db, createSecretBox(randomBytes(32)));
  return { db, services, close: async () => { await services.close(); await db.drop(); } };
}

/** A tenant with one client; returns the client's credentials and a token for it. */
export async function seedClient(
  ctx: TestContext,
  options: { scopes?: string[]; agencies?: string[]; jurisdictions?: string[]; venues?: string[]; currency?: string; timezone?: string; tenantId?: string } = {},
) {
  // A new tenant, unless the client is to join an existing one.
  const tenant = options.tenantId
    ? await ctx.tenants.requireTenant(options.tenantId)
    : await ctx.tenants.createTenant({ name: 'Test Bet', currency: options.currency, timezone: options.timezone });
  const scopes = options.scopes ?? ['upload'];
  const client = await ctx.tenants.createClient({
    tenantId: tenant.tenant_id,
    scopes,
    agencies: options.agencies ?? (scopes.includes('upload') ? ['TAB'] : []),
    jurisdictions: options.jurisdictions,
    venues: options.venues,
  });
  const { access_token } = await ctx.tokens.grant(client.client_id, client.client_secret);
  return { tenant, client, token: access_token, auth: { authorization: `Bearer ${access_token}` } };
}

/**
 * An app whose clock stands at 2024-05-01 12:00 in Sydney, with tokens good for a day, and one
 * upload client (agency TAB) of a tenant in Australia/Sydney: the racing-day and deadline tests.
 */
export async function sydneyUploadApp() {
  const ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  ctx.clock.set(new Date('2024-05-01T12:00:00+10:00'));
  const client = await seedClient(ctx, { agencies: ['TAB'], timezone: 'Australia/Sydney' });
  return { ctx, client };
}

/**
 * Uploads one race's bets (V2) as `as` at the instant `at` (the test clock jumps there), with a
 * token granted then: a token granted days earlier would have expired.
 */
export async function uploadAt(ctx: TestContext, as: { client: { client_id: string; client_secret: string } }, at: string,
  race: { meetingId: number; raceNumber: number }, bets: Record<string, unknown>[]) {
  ctx.clock.set(new Date(at));
  const { access_token } = await ctx.tokens.grant(as.client.client_id, as.client.client_secret);
  return ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: race.meetingId, race_number: race.raceNumber, bets }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
  });
}
