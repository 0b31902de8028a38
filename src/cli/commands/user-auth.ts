// tenant set-auth (frontend users, spec 5.2) and dev-jwks (a development identity provider).
import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { SetUserAuthInput } from '../../modules/auth/user-auth.service.ts';
import { startDevJwks } from '../../tools/dev-jwks/index.ts';
import { describeError, emit, fail, uuid, withRuntime } from '../run.ts';

interface SetAuthOptions {
  mode: 'jwt' | 'custom';
  jwksUrl?: string;
  clientId?: string;
  privateNetwork?: boolean;
}

interface DevJwksOptions {
  host: string;
  port: number;
  users: number;
  clientId: string;
}

function int(name: string, min: number, max: number) {
  return (raw: string) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return Number(raw);
  };
}

export function registerUserAuthCommands(program: Command, tenant: Command): void {
  tenant
    .command('set-auth')
    .description('Configure how the users of a tenant\'s frontend authenticate (docs/frontend.md). Prints the configuration')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .addOption(new Option('--mode <mode>', 'jwt: RS256 tokens checked against the tenant\'s JWKS; custom: opaque tokens the wallet checks at reserve').choices(['jwt', 'custom']).makeOptionMandatory())
    .option('--jwks-url <url>', 'jwt: URL of the tenant\'s JWKS (https://, or http:// for a local one)')
    .option('--client-id <id>', 'jwt: the client_id claim the tenant\'s tokens carry')
    .option('--private-network', 'jwt: the JWKS URL may lead to a private address: needed for a host name; an IP address is taken as written (docs/admin-api.md, "Private addresses")')
    .option('--no-private-network', 'jwt: the JWKS URL must lead to public addresses, checked now and at every fetch, as for one a tenant\'s own admin token sets')
    .action((tenantId: string, opts: SetAuthOptions) =>
      // The service checks the input (including options of the other mode) before writing anything.
      withRuntime((rt) => rt.services.users.setAuth(tenantId, { ...opts } as SetUserAuthInput)),
    );

  program
    .command('dev-jwks')
    .description('Run a development identity provider: a JWKS from a fresh RSA key, and RS256 user tokens for tenant set-auth --mode jwt. ' +
      'Prints one JSON line {"jwks_url", "client_id", "kid", "users": [{"user_id", "token"}]} when ready; GET /token?user=<uuid> signs more. Stops on SIGINT/SIGTERM. Not for production')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', int('--port', 0, 65535), 9091)
    .option('--users <n>', 'how many user tokens to print', int('--users', 0, 1000), 3)
    .option('--client-id <id>', 'client_id claim of the tokens (give the same to tenant set-auth)', 'dev-frontend')
    .action(async (opts: DevJwksOptions) => {
      try {
        const jwks = await startDevJwks({ host: opts.host, port: opts.port, clientId: opts.clientId });
        const stop = () => void jwks.close().then(() => process.exit(0), () => process.exit(1));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        const users = await Promise.all(Array.from({ length: opts.users }, async () => {
          const userId = randomUUID();
          return { user_id: userId, token: await jwks.sign(userId) };
        }));
        emit({ jwks_url: jwks.jwksUrl, client_id: jwks.clientId, kid: jwks.kid, users });
      } catch (error) {
        fail(describeError(error));
      }
    });
}
