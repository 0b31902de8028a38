// The one-time binding of the wallet secrets sealed before they were bound to their place
// (wallet-config.service.ts, walletBinding): each unbound value is opened and sealed again, bound
// to the row and column it is in, in one transaction, and the step is recorded (sealed_bindings).
// Once recorded it never runs again: an unbound value written into a row later (a copy kept from
// before, another tenant's) is then refused where it is, never bound there.
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { withTransaction, type Pool } from '../../../db/pool.ts';
import type { WalletConfigRow } from './wallet-config.queries.ts';
import { SEALED_COLUMNS, walletBinding } from './wallet-config.service.ts';

const STEP = 'wallet_configs';
// Serialises processes starting at once (an arbitrary constant; see pg_advisory_xact_lock); the
// binding of the reserves' tokens (delivery/reserve-token.ts) takes it too.
export const REBIND_LOCK = 7_315_002;

/** Binds the unbound wallet secrets, unless done already; how many values it bound and any it could not open. */
export async function rebindWalletSecrets(pool: Pool, box: SecretBox): Promise<{ rebound: number; unreadable: string[] }> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [REBIND_LOCK]);
    const done = await tx.query('SELECT 1 FROM sealed_bindings WHERE name = $1', [STEP]);
    if (done.rowCount) return { rebound: 0, unreadable: [] };
    const { rows } = await tx.query<WalletConfigRow>('SELECT * FROM wallet_configs ORDER BY tenant_id FOR UPDATE');
    let rebound = 0;
    const unreadable: string[] = [];
    for (const row of rows) {
      const next = { ...row };
      for (const column of SEALED_COLUMNS) {
        const sealed = row[column];
        if (!sealed?.startsWith('v1.')) continue;
        try {
          next[column] = box.seal(box.open(sealed), walletBinding(row.tenant_id, column, row.url));
          rebound += 1;
        } catch {
          // Sealed under another secret key: unreadable before, left so (set the wallet again).
          unreadable.push(row.tenant_id);
        }
      }
      if (SEALED_COLUMNS.every((column) => next[column] === row[column])) continue;
      // updated_at is kept: the configuration is the same, only its sealing changed.
      await tx.query('UPDATE wallet_configs SET client_secret_enc = $2, api_key_enc = $3, signing_secret_enc = $4 WHERE tenant_id = $1',
        [row.tenant_id, next.client_secret_enc, next.api_key_enc, next.signing_secret_enc]);
    }
    await tx.query('INSERT INTO sealed_bindings (name) VALUES ($1)', [STEP]);
    return { rebound, unreadable: [...new Set(unreadable)] };
  });
}
