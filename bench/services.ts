// The services a benchmark drives, built by the composition root like serve builds them.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { Pool } from '../src/db/pool.ts';
import { createServices, type Services } from '../src/services.ts';

export function benchServices(pool: Pool, url: string, settings: Partial<Config> = {}): Services {
  const config: Config = { ...loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), ...settings };
  return createServices({ config, db: pool, box: createSecretBox(randomBytes(32)), listenUrl: url });
}
