// tenant create, client create | list | rotate-secret | revoke | grant.
import type { Command } from 'commander';
import { list, uuid, uuidList, withRuntime } from '../run.ts';

export function registerTenantCommands(program: Command): Command {
  const tenant = program.command('tenant').description('Manage tenants (operator brands)');
  tenant
    .command('create')
    .description('Create a tenant. Prints {"tenant_id", "name", "currency", "timezone"}')
    .requiredOption('--name <text>', 'brand name')
    .option('--currency <code>', 'default currency, ISO 4217', 'AUD')
    .option('--timezone <iana>', 'local time zone, IANA name', 'Australia/Sydney')
    .action((opts: { name: string; currency: string; timezone: string }) =>
      withRuntime((rt) => rt.services.tenants.createTenant(opts)),
    );

  const client = program.command('client').description('Manage operator clients (OAuth 2.0 client credentials)');
  client
    .command('create')
    .description('Create a client of a tenant. Prints its client_id and client_secret (shown only this once)')
    .requiredOption('--tenant <tenant_id>', 'tenant the client belongs to (UUID)', uuid)
    .requiredOption('--scopes <list>', 'comma-separated: upload, report, backoffice, catalog, admin', list)
    .option('--agencies <list>', 'source codes the client may upload for, comma-separated', list)
    .option('--jurisdictions <list>', 'for report clients: jurisdictions it may see, comma-separated', list)
    .option('--name <text>', 'a label for the client')
    .action((opts: { tenant: string; scopes: string[]; agencies?: string[]; jurisdictions?: string[]; name?: string }) =>
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
    .description('Replace a client\'s secret. Prints the new client_secret (shown only this once)')
    .argument('<client_id>')
    .action((clientId: string) => withRuntime((rt) => rt.services.tenants.rotateSecret(clientId)));
  client
    .command('revoke')
    .description('Revoke a client: no new tokens, and its tokens stop working within WAGERLINE_AUTH_REFRESH_SECONDS')
    .argument('<client_id>')
    .action((clientId: string) => withRuntime((rt) => rt.services.tenants.revokeClient(clientId)));
  client
    .command('grant')
    .description('Let a back-office client see more tenants than its own (a group operator running several brands); ' +
      'replaces its earlier grant, "none" removes it. Prints {"client_id", "tenant_id", "granted", "tenants"}')
    .argument('<client_id>')
    .requiredOption('--tenants <list>', 'tenant ids (UUIDs), comma-separated, or none', uuidList)
    .action((clientId: string, opts: { tenants: string[] }) => withRuntime((rt) =>
      rt.services.tenants.grantTenants(clientId, opts.tenants.length === 1 && opts.tenants[0] === 'none' ? [] : opts.tenants)));
  return tenant;
}
