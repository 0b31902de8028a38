// The user's token stored with a reserve (wallet_calls.secret_enc), kept while the reserve may be
// asked again by a worker. It is sealed bound to its row — tenant, call (transactionId), bet and
// user, none of which changes from insert to the last resend — so a sealed token copied into
// another call's row (another bet's, another tenant's) or left in a row whose bet or user was
// changed in the database does not open there, and is never sent with that call.
// Tokens sealed by an earlier version without that binding are bound once where they are, like
// the wallet secrets (config/rebind-secrets.ts), and the step recorded in sealed_bindings.
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { withTransaction, type Pool } from '../../../db/pool.ts';
import { REBIND_LOCK } from '../config/rebind-secrets.ts';

/** What identifies the row a reserve's token belongs to (its columns in wallet_calls). */
export interface TokenRow {
  tenant_id: string;
  transaction_id: string;
  bet_id: string;
  user_id: string;
}

const STEP = 'wallet_calls.secret_enc';

/** The associated data of a reserve's token: its row (UUIDs as PostgreSQL returns them, lower-case). */
export function reserveTokenBinding(row: TokenRow): string {
  return JSON.stringify(['wallet_calls', 'secret_enc', ...[row.tenant_id, row.transaction_id, row.bet_id, row.user_id].map((id) => id.toLowerCase())]);
}

/** Seals the placement token for the reserve row it is written with. */
export function sealReserveToken(box: SecretBox, row: TokenRow, token: string): string {
  return box.seal(token, reserveTokenBinding(row));
}

/** The row's own token; throws when it was sealed under another key or for another row (or unbound). */
export function openReserveToken(box: SecretBox, row: TokenRow & { secret_enc: string }): string {
  return box.open(row.secret_enc, reserveTokenBinding(row));
}

/**
 * Binds the reserve tokens sealed without a binding, unless done already: reserves still in flight
 * when the earlier version stopped (asked again by the worker, or by the rescue of one whose
 * placement died). Once recorded it never runs again: an unbound token written into a row later
 * (one kept from before, another row's) is refused where it is. Tokens this key cannot open are
 * left as they are: the worker parks their reserves for an operator, as it did before.
 */
export async function rebindReserveTokens(pool: Pool, box: SecretBox): Promise<{ rebound: number; unreadable: string[] }> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [REBIND_LOCK]);
    const done = await tx.query('SELECT 1 FROM sealed_bindings WHERE name = $1', [STEP]);
    if (done.rowCount) return { rebound: 0, unreadable: [] };
    const { rows } = await tx.query<TokenRow & { secret_enc: string }>(
      `SELECT tenant_id, transaction_id, bet_id, user_id, secret_enc FROM wallet_calls
        WHERE secret_enc LIKE 'v1.%' ORDER BY tenant_id, transaction_id FOR UPDATE`);
    const bound: Array<TokenRow & { secret_enc: string }> = [];
    const unreadable: string[] = [];
    for (const row of rows) {
      try {
        bound.push({ ...row, secret_enc: sealReserveToken(box, row, box.open(row.secret_enc)) });
      } catch {
        unreadable.push(row.transaction_id);
      }
    }
    if (bound.length) {
      await tx.query(
        `UPDATE wallet_calls c SET secret_enc = u.secret_enc
           FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS u(tenant_id, transaction_id, secret_enc)
          WHERE c.tenant_id = u.tenant_id AND c.transaction_id = u.transaction_id`,
        [bound.map((r) => r.tenant_id), bound.map((r) => r.transaction_id), bound.map((r) => r.secret_enc)]);
    }
    await tx.query('INSERT INTO sealed_bindings (name) VALUES ($1)', [STEP]);
    return { rebound: bound.length, unreadable };
  });
}
