// The service's access-token signing keys. They live in the database (private half sealed with
// the secret box) so every process signs and verifies with the same set. A rotated-out key stays
// published and verifying until the last token it signed has expired.
import { randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type CryptoKey, type JWK } from 'jose';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { ConfigError } from '../../config.ts';

export const ALG = 'ES256';
// Serialises key creation across processes (an arbitrary constant; see pg_advisory_xact_lock).
const KEY_LOCK = 7_315_001;

export interface SigningKey {
  kid: string;
  publicJwk: JWK;
  retiredAt: Date | null;
  /** Present for the active key only. */
  privateKey?: CryptoKey;
}

interface KeyRow {
  kid: string;
  public_jwk: JWK;
  private_key_enc: string;
  retired_at: Date | null;
}

async function insertKey(db: Queryable, box: SecretBox): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const kid = randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
  await db.query('INSERT INTO signing_keys (kid, alg, public_jwk, private_key_enc) VALUES ($1, $2, $3, $4)', [
    kid,
    ALG,
    publicJwk,
    box.seal(await exportPKCS8(privateKey)),
  ]);
  return kid;
}

/** Creates the first key when there is none (at first start). */
export async function ensureSigningKey(pool: Pool, box: SecretBox): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
    const { rowCount } = await tx.query('SELECT 1 FROM signing_keys WHERE retired_at IS NULL');
    if (!rowCount) await insertKey(tx, box);
  });
}

/** Makes a new key the active one; the previous one keeps verifying until its tokens expire. */
export async function rotateSigningKey(pool: Pool, box: SecretBox): Promise<string> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
    await tx.query('UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL');
    return insertKey(tx, box);
  });
}

/** A stored private key, opened; a key sealed under another secret key is a setting error, said so. */
function openKey(box: SecretBox, sealed: string): string {
  try {
    return box.open(sealed);
  } catch {
    throw new ConfigError('WAGERLINE_SECRET_KEY', 'does not open the signing keys stored in this database: every process on one database needs ' +
      'the same key (WAGERLINE_SECRET_KEY, or the same WAGERLINE_DATA_DIR/secret.key as the process that created them)');
  }
}

/** Keys that may still verify a token: the active one and those retired less than ttl ago. */
export async function loadSigningKeys(db: Queryable, box: SecretBox, ttlSeconds: number): Promise<SigningKey[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT kid, public_jwk, private_key_enc, retired_at FROM signing_keys
     WHERE retired_at IS NULL OR retired_at > now() - make_interval(secs => $1)
     ORDER BY created_at DESC`,
    [ttlSeconds],
  );
  return Promise.all(
    rows.map(async (row) => ({
      kid: row.kid,
      publicJwk: row.public_jwk,
      retiredAt: row.retired_at,
      privateKey: row.retired_at ? undefined : await importPKCS8(openKey(box, row.private_key_enc), ALG),
    })),
  );
}
