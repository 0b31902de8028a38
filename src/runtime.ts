// What every entry point needs: validated configuration, the database (migrated), the secret
// box and the token service. serve and the CLI commands open it the same way.
import type { Config } from './config.ts';
import { createSecretBox, loadSecretKey, type SecretBox } from './crypto/secret-box.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { ensureSigningKey } from './modules/auth/signing-keys.ts';
import { createTokenService, type TokenService } from './modules/auth/tokens.service.ts';

export interface Runtime {
  config: Config;
  database: Database;
  box: SecretBox;
  tokens: TokenService;
  applied: string[];
  close(): Promise<void>;
}

export async function openRuntime(config: Config, log: (line: string) => void = () => undefined): Promise<Runtime> {
  const database = await openDatabase(config, log);
  try {
    const { applied } = await migrate(database.url, log);
    const box = createSecretBox(loadSecretKey(config));
    await ensureSigningKey(database.pool, box);
    const tokens = createTokenService({
      db: database.pool,
      box,
      ttlSeconds: config.WAGERLINE_TOKEN_TTL_SECONDS,
      refreshSeconds: config.WAGERLINE_AUTH_REFRESH_SECONDS,
    });
    return {
      config,
      database,
      box,
      tokens,
      applied,
      close: async () => {
        tokens.stop();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
