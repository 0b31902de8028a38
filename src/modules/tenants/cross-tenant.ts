// The powers of a client that reach beyond its own tenant. Every client belongs to a tenant, but
// four things it can be given act on other tenants: scope `platform` (every tenant's admin routes
// and the platform's own, docs/admin-api.md), scope `catalog` (the one race catalogue all tenants
// bet on — a result settles every tenant's bets), report jurisdictions and venues (an authority's
// or a track owner's view of every tenant's bets in them, docs/reports.md) and back-office grants (other tenants' bets to
// read and cancel, docs/backoffice.md). Only the platform hands them out: the CLI, or an
// admin route called with a `platform` token. A tenant's own admin never can, or it could reach
// the other tenants through a client it made (or through a new secret for one it was given).
import { AppError } from '../../errors.ts';
import { isPlatform } from '../../http/tenant-reach.ts';
import type { Principal } from '../auth/tokens.service.ts';

const WHY: Record<string, string> = {
  platform: 'scope "platform" acts on every tenant',
  catalog: 'scope "catalog" changes the race catalogue every tenant bets on',
};

/** What of the client's scopes and jurisdictions reaches beyond its tenant, each said why. */
export function crossTenantPowers(client: {
  scopes: readonly string[]; jurisdictions?: readonly string[]; venues?: readonly string[]; granted?: readonly string[];
}): string[] {
  const scopes = client.scopes.map((s) => s.trim()).filter((s) => Object.hasOwn(WHY, s)).map((s) => WHY[s]!);
  const authority = (client.jurisdictions ?? []).some((j) => j.trim() !== '');
  const trackOwner = (client.venues ?? []).some((v) => v.trim() !== '');
  return [
    ...scopes,
    ...(authority ? ['report jurisdictions show every tenant\'s bets in them'] : []),
    ...(trackOwner ? ['report venues show every tenant\'s bets at those tracks'] : []),
    ...(client.granted?.length ? ['a back-office grant reaches other tenants\' bets'] : []),
  ];
}

/** Refuses (403) a caller without scope `platform` giving or handing over such powers. */
export function requirePlatformFor(caller: Principal, action: string, client: Parameters<typeof crossTenantPowers>[0]): void {
  const powers = crossTenantPowers(client);
  if (powers.length && !isPlatform(caller)) {
    throw new AppError('insufficient_scope', `only the platform may ${action}: ${[...new Set(powers)].join('; ')} ` +
      '(wagerline client create, or a token with scope "platform")');
  }
}
