// Per-tenant wallet configuration (spec 4.3, 5.3): where the wallet is, how we authenticate,
// whether requests are signed, the amount unit and the concurrency. Secrets are sealed with the
// secret box before they reach the database and are never returned or logged.
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { withTransaction, type Pool, type Queryable } from '../../../db/pool.ts';
import { AppError, fieldNamer, type FieldNames } from '../../../errors.ts';
import type { TenantService } from '../../tenants/tenants.service.ts';
import { AMOUNT_UNITS, type AmountUnit } from '../../../wallet-protocol/amounts.ts';
import type { WalletAuth, WalletEndpoint } from '../delivery/http-client.ts';
import { platformDefault, publicOnly, requirePublicHost } from '../../../net/private-network.ts';
import { redactUrlCredentials } from '../../../net/redact-url.ts';
import { verifyWallet } from './verify-wallet.ts';
import { characters } from '../../../http/text-rules.ts';
import * as q from './wallet-config.queries.ts';

export interface SetWalletInput {
  tenantId: string;
  url: string;
  auth: 'client_credentials' | 'api_key';
  clientId?: string;
  clientSecret?: string;
  apiKey?: string;
  apiKeyHeader?: string;
  signingSecret?: string;
  amountUnit?: string;
  concurrency?: number;
  /** Check the wallet answers and takes the credentials before saving (verify-wallet.ts). */
  verify?: boolean;
  /**
   * Whether the URL may lead to private addresses (docs/admin-api.md, "Private addresses"): true
   * only on the platform's word; false for a tenant's own admin token, and then it must lead to
   * public addresses, now and at every connection; omitted (the platform without a word): an IP
   * address is taken as written, a host name must resolve to public addresses.
   */
  privateNetwork?: boolean;
  /** Whose names refusals use: the CLI's options (default) or the admin API's body fields. */
  names?: FieldNames;
}

/** What set-wallet prints: the configuration without any secret. */
export interface WalletConfigView {
  tenant_id: string;
  url: string;
  auth: 'client_credentials' | 'api_key';
  client_id: string | null;
  api_key_header: string | null;
  signed: boolean;
  amount_unit: AmountUnit;
  concurrency: number;
  private_network: boolean;
  updated_at: string;
}

const bad = (message: string) => new AppError('bad_request', message);

/**
 * A wallet's base URL as stored (no trailing slash): http(s), no query string or fragment — the
 * protocol's paths are appended to it — and no credentials, given with their own options. Also the
 * rule of `wallet-check --url`: a wallet a tenant cannot be pointed at is not worth checking.
 */
export function checkWalletUrl(raw: string, n = fieldNamer()): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Quoted without what may be a credential: the refusal is printed, answered and logged.
    throw bad(`${n('url')} "${redactUrlCredentials(raw)}" is not a URL (expected e.g. https://wallet.example.com/api)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad(`${n('url')} must use https:// (or http:// for a local wallet), got "${url.protocol}"`);
  // A bare "?" or "#" leaves search and hash empty, and would still end up in every path.
  if (url.search || url.hash || /[?#]/.test(raw)) throw bad(`${n('url')} must not carry a query string or fragment: the paths /auth/token, /reserve, … are appended to it`);
  // The URL is shown (tenant show, messages) and stored as it is; credentials are sealed apart.
  if (url.username || url.password) {
    throw bad(`${n('url')} must not carry a user name or password: give the wallet's credentials with ${n('client_id')} and ${n('client_secret')}, `
      + `or ${n('api_key')} (stored sealed)`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** The longest value of each option, as the admin API's schema bounds it (tenants.http.ts). */
const MAX_CHARACTERS: Array<[keyof SetWalletInput, string, number]> = [
  ['url', 'url', 2000], ['clientId', 'client_id', 500], ['clientSecret', 'client_secret', 500], ['apiKey', 'api_key', 500],
  ['apiKeyHeader', 'api_key_header', 100], ['signingSecret', 'signing_secret', 500],
];

/** Refuses a value longer than the API takes: the CLI has no schema in front of the service. */
function checkLengths(input: SetWalletInput, n: (field: string) => string): void {
  for (const [key, field, max] of MAX_CHARACTERS) {
    const value = input[key];
    if (typeof value === 'string' && characters(value) > max) throw bad(`${n(field)} must be at most ${max} characters`);
  }
}

export function viewOf(row: q.WalletConfigRow): WalletConfigView {
  return {
    tenant_id: row.tenant_id,
    url: row.url,
    auth: row.auth_kind,
    client_id: row.client_id,
    api_key_header: row.api_key_header,
    signed: row.signing_secret_enc !== null,
    amount_unit: row.amount_unit,
    concurrency: row.concurrency,
    private_network: row.private_network,
    updated_at: row.updated_at.toISOString(),
  };
}

/** The columns of wallet_configs that hold a sealed secret. */
export const SEALED_COLUMNS = ['client_secret_enc', 'api_key_enc', 'signing_secret_enc'] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

/**
 * Where a sealed wallet secret belongs: its tenant, its column and the wallet's URL (every change
 * of the URL seals the secrets again, set-wallet writes them together). Moved to another tenant's
 * row or column, or its row pointed at another URL, it does not open (crypto/secret-box.ts).
 */
export function walletBinding(tenantId: string, column: SealedColumn, url: string): string {
  return JSON.stringify(['wallet_configs', column, tenantId.toLowerCase(), url]);
}

/** A sealed secret of the row, opened; a clear error when it is not the row's own (or not under this key). */
function openSecret(row: q.WalletConfigRow, column: SealedColumn, box: SecretBox): string {
  try {
    return box.open(row[column]!, walletBinding(row.tenant_id, column, row.url));
  } catch {
    throw new Error(`the wallet's ${column.replace(/_enc$/, '')} cannot be opened: it was sealed under another WAGERLINE_SECRET_KEY, `
      + 'or for another tenant, column or URL (set the wallet again)');
  }
}

/** Opens a stored configuration into what the HTTP client needs. */
export function endpointOf(row: q.WalletConfigRow, box: SecretBox): WalletEndpoint {
  const auth: WalletEndpoint['auth'] = row.auth_kind === 'client_credentials'
    ? { kind: 'client_credentials', clientId: row.client_id!, clientSecret: openSecret(row, 'client_secret_enc', box) }
    : { kind: 'api_key', apiKey: openSecret(row, 'api_key_enc', box), header: row.api_key_header! };
  return {
    tenantId: row.tenant_id,
    url: row.url,
    auth,
    ...(row.signing_secret_enc && { signingSecret: openSecret(row, 'signing_secret_enc', box) }),
    amountUnit: row.amount_unit,
    concurrency: row.concurrency,
    privateNetwork: row.private_network,
    version: row.updated_at.toISOString(),
  };
}

export async function loadEndpoint(db: Queryable, box: SecretBox, tenantId: string): Promise<WalletEndpoint> {
  const row = await q.findWalletConfig(db, tenantId);
  if (!row) throw new AppError('wallet_not_configured', `tenant "${tenantId}" has no wallet configured (wagerline tenant set-wallet)`);
  return endpointOf(row, box);
}

/** The tenant's configuration without secrets, or null when it has none. */
export async function getWallet(db: Queryable, tenantId: string): Promise<WalletConfigView | null> {
  const row = await q.findWalletConfig(db, tenantId);
  return row ? viewOf(row) : null;
}

/** What setWallet returns: the configuration without secrets, and what was checked before saving it. */
export type SetWalletResult = WalletConfigView & {
  /** What the check found (e.g. that /auth/token issued a token); null when saved unchecked. */
  verified: string | null;
};

export async function setWallet(
  deps: { db: Pool; box: SecretBox; tenants: TenantService; timeoutMs: number; anyAddress?: boolean },
  input: SetWalletInput,
): Promise<SetWalletResult> {
  const { db, box } = deps;
  await deps.tenants.requireTenant(input.tenantId);
  const n = fieldNamer(input.names);
  checkLengths(input, n);
  const url = checkWalletUrl(input.url, n);
  const unit = (input.amountUnit ?? 'dollars') as AmountUnit;
  if (!AMOUNT_UNITS.includes(unit)) throw bad(`${n('amount_unit')} must be dollars or cents, got "${input.amountUnit}"`);
  const concurrency = input.concurrency ?? 50;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) throw bad(`${n('concurrency')} must be a whole number from 1 to 1000, got ${input.concurrency}`);
  if (input.signingSecret !== undefined && input.signingSecret.length < 16) throw bad(`${n('signing_secret')} must be at least 16 characters`);
  let auth: WalletAuth;
  if (input.auth === 'client_credentials') {
    if (!input.clientId || !input.clientSecret) throw bad(`${n('auth')} client_credentials needs ${n('client_id')} and ${n('client_secret')}`);
    if (input.apiKey) throw bad(`${n('api_key')} belongs to ${n('auth')} api_key`);
    auth = { kind: 'client_credentials', clientId: input.clientId, clientSecret: input.clientSecret };
  } else if (input.auth === 'api_key') {
    if (!input.apiKey) throw bad(`${n('auth')} api_key needs ${n('api_key')}`);
    if (input.clientId || input.clientSecret) throw bad(`${n('client_id')}/${n('client_secret')} belong to ${n('auth')} client_credentials`);
    const header = (input.apiKeyHeader ?? 'x-api-key').toLowerCase();
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) throw bad(`${n('api_key_header')} "${input.apiKeyHeader}" is not an HTTP header name`);
    // Sent as a header value on every call: anything else could be saved (--no-verify) and then
    // fail every call at delivery, or be told as "the wallet is unreachable" by the check.
    if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(input.apiKey)) {
      throw bad(`${n('api_key')} must be printable ASCII, without leading or trailing spaces (it is sent as an HTTP header value)`);
    }
    auth = { kind: 'api_key', apiKey: input.apiKey, header };
  } else {
    throw bad(`${n('auth')} must be client_credentials or api_key, got "${String(input.auth)}"`);
  }
  const privateNetwork = input.privateNetwork ?? platformDefault(url);
  const mustBePublic = publicOnly(privateNetwork, deps.anyAddress);
  if (mustBePublic) await requirePublicHost(url, n('url'));
  // Checked before anything is saved: a configuration the wallet refuses would park every call.
  const verified = input.verify
    ? await verifyWallet({ url, auth, publicOnly: mustBePublic, ...(input.signingSecret && { signingSecret: input.signingSecret }) }, deps.timeoutMs)
    : null;
  const seal = (plain: string, column: SealedColumn) => box.seal(plain, walletBinding(input.tenantId, column, url));
  const row = await saveWalletConfig(db, {
    tenant_id: input.tenantId,
    url,
    signing_secret_enc: input.signingSecret ? seal(input.signingSecret, 'signing_secret_enc') : null,
    amount_unit: unit,
    concurrency,
    private_network: privateNetwork,
    ...(auth.kind === 'client_credentials'
      ? { auth_kind: 'client_credentials', client_id: auth.clientId, client_secret_enc: seal(auth.clientSecret, 'client_secret_enc'), api_key_enc: null, api_key_header: null }
      : { auth_kind: 'api_key', client_id: null, client_secret_enc: null, api_key_enc: seal(auth.apiKey, 'api_key_enc'), api_key_header: auth.header }),
  });
  return { ...viewOf(row), verified };
}

/**
 * Saves a configuration under the claims' lock of its wallet (lockWalletClaims): the change
 * commits between two claims, never between a claim's check of the version and its take.
 */
function saveWalletConfig(db: Pool, config: Omit<q.WalletConfigRow, 'updated_at'>): Promise<q.WalletConfigRow> {
  return withTransaction(db, async (tx) => {
    await q.lockWalletClaims(tx, config.tenant_id);
    return q.upsertWalletConfig(tx, config);
  });
}
