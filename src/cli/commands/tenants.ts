// tenant create | list | show | disable | set-zone, client create | list | rotate-secret | revoke | grant, token.
import { Option, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import { OAuthError } from '../../modules/auth/tokens.service.ts';
import { list, uuid, uuidList, withRuntime } from '../run.ts';

const CLIENT_ID = 'the client\'s id, as client create printed it (wl_…)';

export function registerTenantCommands(program: Command): Command {
  const tenant = program.command('tenant').description('Manage tenants (operator brands)');
  tenant
    .command('create')
    .description('Create a tenant. Prints {"tenant_id", "name", "currency", "timezone"}')
    .requiredOption('--name <text>', 'brand name, 1 to 200 characters')
    .option('--currency <code>', 'default currency, ISO 4217', 'AUD')
    .option('--timezone <iana>', 'local time zone, an IANA name the database and Node.js read alike: a Region/City name ' +
      '(Europe/Paris, not CET, which the database reads as a fixed UTC+1)', 'Australia/Sydney')
    .action((opts: { name: string; currency: string; timezone: string }) =>
      withRuntime((rt) => rt.services.tenants.createTenant(opts)),
    );

  tenant
    .command('list')
    .description('Every tenant, oldest first. Prints {"tenants": [{"tenant_id", "name", "currency", "timezone", "created_at", "disabled", "disabled_at"}]}')
    .action(() => withRuntime((rt) => rt.services.tenants.listTenants()));
  tenant
    .command('show')
    .description('A tenant with its clients (no secrets), its wallet configuration (no secrets), how its frontend users authenticate ' +
      'and its acceptance limits; null where nothing is configured. Prints {"tenant", "clients", "wallet", "user_auth", "limits"}')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .action((tenantId: string) => withRuntime((rt) => rt.services.tenantOverview.show(tenantId)));
  tenant
    .command('disable')
    .description('Disable a tenant: its clients get no new tokens, their tokens are refused within WAGERLINE_AUTH_REFRESH_SECONDS, ' +
      'its frontend users are refused. Disabling it again changes nothing. Prints the tenant with "changed"')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .action((tenantId: string) => withRuntime((rt) => rt.services.tenants.disableTenant(tenantId)));

  tenant
    .command('set-zone')
    .description('Replace a tenant\'s time zone that the database does not know, or reads differently from Node.js. The first (a name retired ' +
      'from the IANA database, stored before creation checked it) gets the tenant\'s uploads and its users\' bets refused with tenant_misconfigured; ' +
      'the second (an abbreviation such as CET, a fixed offset to the database) is taken, but racing days may differ between uploads and placed ' +
      'bets. `serve` names both at start. The new zone is checked as tenant create checks it. A zone both read alike is kept. ' +
      'Prints the tenant with "previous_timezone"')
    .argument('<tenant_id>', 'tenant id (UUID)', uuid)
    .argument('<zone>', 'the new time zone, an IANA name the database knows and reads as Node.js does (e.g. America/Regina, Europe/Paris)')
    .action((tenantId: string, zone: string) => withRuntime((rt) => rt.services.tenants.setTimeZone(tenantId, zone)));

  program
    .command('token')
    .description('Issue an access token for a client, as POST /oauth/token would (checked the same way; no HTTP). ' +
      'Prints {"access_token", "token_type", "expires_in", "scope"}')
    .addOption(new Option('--client-id <id>', 'the client\'s id').env('WAGERLINE_CLIENT_ID').makeOptionMandatory())
    .addOption(new Option('--client-secret <secret>', 'the client\'s secret (prefer the environment variable: arguments show in ps)')
      .env('WAGERLINE_CLIENT_SECRET').makeOptionMandatory())
    .option('--scope <scopes>', 'space- or comma-separated subset of the client\'s scopes (default: all of them)')
    .action((opts: { clientId: string; clientSecret: string; scope?: string }) =>
      withRuntime(async (rt) => {
        await rt.services.tokens.refresh();
        try {
          const token = await rt.services.tokens.grant(opts.clientId, opts.clientSecret, opts.scope?.replace(/,/g, ' '));
          return { access_token: token.access_token, token_type: 'Bearer', expires_in: token.expires_in, scope: token.scope };
        } catch (error) {
          if (error instanceof OAuthError) throw new AppError('bad_request', `${error.error}: ${error.message}`);
          throw error;
        }
      }),
    );

  const client = program.command('client').description('Manage operator clients (OAuth 2.0 client credentials)');
  client
    .command('create')
    .description('Create a client of a tenant. Prints its client_id and client_secret (shown only this once)')
    .requiredOption('--tenant <tenant_id>', 'tenant the client belongs to (UUID)', uuid)
    .requiredOption('--scopes <list>', 'comma-separated: upload, report, backoffice, catalog, admin, platform (docs/auth.md)', list)
    .option('--agencies <list>', 'for upload clients, and required with the upload scope: the source codes it may upload for, ' +
      'comma-separated (with one, a bet\'s source defaults to it)', list)
    .option('--jurisdictions <list>', 'for report clients: jurisdictions it may see, comma-separated (a racing authority, a regulator)', list)
    .option('--venues <list>', 'for report clients: tracks whose meetings it may see, comma-separated, each JURISDICTION:Venue[:CODE] as the catalogue has them (VIC:Flemington, VIC:Bendigo:H; a track owner)', list)
    .option('--name <text>', 'a label for the client (at most 200 characters)')
    .action((opts: { tenant: string; scopes: string[]; agencies?: string[]; jurisdictions?: string[]; venues?: string[]; name?: string }) =>
      withRuntime((rt) =>
        rt.services.tenants.createClient({ ...opts, tenantId: opts.tenant }),
      ),
    );
  client
    .command('list')
    .description('List the clients of a tenant (no secrets). Prints {"clients": [...]}')
    .requiredOption('--tenant <tenant_id>', 'tenant whose clients to list (UUID)', uuid)
    .action((opts: { tenant: string }) =>
      withRuntime(async (rt) => ({ clients: await rt.services.tenants.listClients(opts.tenant) })),
    );
  client
    .command('rotate-secret')
    .description('Replace a client\'s secret; the old one stops working at once. Prints {"client_id", "client_secret"} (shown only this once)')
    .argument('<client_id>', CLIENT_ID)
    .action((clientId: string) => withRuntime((rt) => rt.services.tenants.rotateSecret(clientId)));
  client
    .command('revoke')
    .description('Revoke a client: no new tokens, and its tokens stop working within WAGERLINE_AUTH_REFRESH_SECONDS. '
      + 'Prints {"client_id", "status": "revoked"}')
    .argument('<client_id>', CLIENT_ID)
    .action((clientId: string) => withRuntime((rt) => rt.services.tenants.revokeClient(clientId)));
  client
    .command('grant')
    .description('Let a back-office client see more tenants than its own (a group operator running several brands); ' +
      'replaces its earlier grant, "none" removes it. Prints {"client_id", "tenant_id", "granted", "tenants"}')
    .argument('<client_id>', 'a client with scope backoffice (its client_id, wl_…)')
    .requiredOption('--tenants <list>', 'tenant ids (UUIDs), comma-separated, or none', uuidList)
    .action((clientId: string, opts: { tenants: string[] }) => withRuntime((rt) =>
      rt.services.tenants.grantTenants(clientId, opts.tenants.length === 1 && opts.tenants[0] === 'none' ? [] : opts.tenants)));
  return tenant;
}
