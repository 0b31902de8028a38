// Seals secrets stored in the database (token signing keys, wallet credentials) with AES-256-GCM.
// The key is WAGERLINE_SECRET_KEY, or for the embedded default a key generated once into the data
// directory. Sealed form: "v1.<iv>.<tag>.<ciphertext>" (base64url parts), or "v2.…" for a value
// sealed with a binding: the place it belongs (e.g. a tenant's wallet secret and its column) is
// authenticated with it as associated data, so a database writer who moves the value elsewhere
// gets nothing opened there. A bound value never opens unbound, nor an unbound one as bound.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

/** Bytes of the GCM tag seal() writes; open() takes no other length. */
const TAG_BYTES = 16;

export interface SecretBox {
  /** Seals; with `binding`, the value opens only with that same binding. */
  seal(plain: string, binding?: string): string;
  open(sealed: string, binding?: string): string;
  /** A 32-byte key for one purpose (HKDF-SHA256 of the secret key): e.g. the MAC of page cursors. */
  derive(purpose: string): Buffer;
}

/** The associated data of a binding: prefixed, so it can never be mistaken for another use of the key. */
const associatedData = (binding: string) => Buffer.from(`wagerline:sealed:${binding}`, 'utf8');

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  return {
    derive(purpose) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `wagerline:${purpose}`, 32));
    },
    seal(plain, binding) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      if (binding !== undefined) cipher.setAAD(associatedData(binding));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [binding === undefined ? 'v1' : 'v2', iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(sealed, binding) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== (binding === undefined ? 'v1' : 'v2') || !iv || !tag || data === undefined) {
        throw new Error(binding === undefined ? 'not a sealed secret' : 'not a sealed secret bound to its place');
      }
      // GCM checks only as many tag bytes as it is given (Node takes 4 to 16): a sealed value cut
      // to a 4-byte tag would be forged in about 2^32 tries. The length is fixed, as seal() writes it.
      const authTag = Buffer.from(tag, 'base64url');
      if (authTag.length !== TAG_BYTES) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      if (binding !== undefined) decipher.setAAD(associatedData(binding));
      decipher.setAuthTag(authTag);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** The configured key, or the data directory's key file (created with mode 0600 on first use). */
export function loadSecretKey(config: Config): Buffer {
  if (config.WAGERLINE_SECRET_KEY) return config.WAGERLINE_SECRET_KEY;
  const file = path.join(config.WAGERLINE_DATA_DIR, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.WAGERLINE_DATA_DIR, { recursive: true, mode: 0o755 });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // a concurrent start wrote it
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}
