/**
 * Encryption at rest of a push config's secrets (`authentication.credentials` and `token`):
 * AES-256-GCM with a 128-bit tag (a shorter one is refused), a fresh 96-bit IV per value, and the
 * config's identity and destination as additional authenticated data, so a sealed value copied
 * into another config (or another task), or left in place while the config's URL or scheme is
 * rewritten, does not open.
 *
 * Two formats open: `v2` (sealed now), whose associated data the caller gives in full, and `v1`,
 * sealed by earlier versions over the config's identity only ({@link SecretContexts.v1}). A v1
 * value is not bound to its URL; it is read so that configs stored before the upgrade keep
 * delivering, and goes away with its task.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Marks a sealed value; what follows is `<key id>.<base64url(iv | tag | ciphertext)>`. */
const SEALED_PREFIX = 'a2a-sealed:v2:';
const V1_PREFIX = 'a2a-sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The associated data of one secret: for values sealed now, and for values sealed in the v1 format. */
export interface SecretContexts {
  readonly v2: string;
  readonly v1: string;
}

/** A sealed value could not be opened: another key sealed it, or it was altered. Its text names no secret. */
export class SealedSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedSecretError';
  }
}

/**
 * Reads an encryption key: 32 bytes, as bytes, or as a string of base64 / base64url (44 or 43
 * characters) or hex (64 characters). Undefined when it is none of these.
 */
export function parseEncryptionKey(key: unknown): Buffer | undefined {
  if (key instanceof Uint8Array) return key.length === 32 ? Buffer.from(key) : undefined;
  if (typeof key !== 'string') return undefined;
  const text = key.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : undefined;
  }
  return undefined;
}

/** Seals and opens secrets with one key (or stores them as given, without a key). */
export class SecretBox {
  private readonly keyId: string | undefined;

  /** `key`: 32 bytes, or undefined to store secrets as they are (the module warns at start-up). */
  constructor(private readonly key: Buffer | undefined) {
    // a short, non-secret fingerprint: a value sealed under another key is told apart from a tampered one
    this.keyId = key ? createHash('sha256').update(key).digest('base64url').slice(0, 8) : undefined;
  }

  /** `value` sealed for `context` (what it is bound to); as given without a key. */
  seal(value: string, context: string): string {
    if (!this.key) return value;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${this.keyId}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  /**
   * The secret in `stored`. A value stored before a key was configured opens as it is.
   * @throws SealedSecretError
   */
  open(stored: string, context: SecretContexts | string): string {
    const v1 = stored.startsWith(V1_PREFIX);
    if (!v1 && !stored.startsWith(SEALED_PREFIX)) return stored;
    const aad = typeof context === 'string' ? context : v1 ? context.v1 : context.v2;
    const rest = stored.slice((v1 ? V1_PREFIX : SEALED_PREFIX).length);
    const dot = rest.indexOf('.');
    const keyId = rest.slice(0, dot);
    if (!this.key) throw new SealedSecretError('a push config secret is encrypted but no push.encryptionKey is configured');
    if (keyId !== this.keyId) throw new SealedSecretError(`a push config secret was encrypted with another key (key id ${keyId})`);
    const bytes = Buffer.from(rest.slice(dot + 1), 'base64url');
    try {
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new RangeError('too short');
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedSecretError('a push config secret does not decrypt: it was altered, or belongs to another config or another URL');
    }
  }
}
