import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** One document encryption key: 32 bytes, and the id stored beside each file it encrypted. */
export interface DocumentKey {
  id: string;
  key: Buffer;
}

/** A key's id: the first 16 hex digits of its SHA-256 (names the key without revealing it). */
export function documentKey(key: Buffer): DocumentKey {
  if (key.length !== 32) throw new Error(`a document encryption key is 32 bytes (got ${key.length})`);
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM: new files under the current key; any file under the current key or a previous one (a key rotated
 * out keeps being read until its files are re-encrypted). A file changed at rest fails to decrypt: GCM's tag
 * authenticates it, and the storage key (the file's name) is bound to it as additional data, so bytes moved to
 * another name fail too.
 */
export class DocumentCipher {
  readonly current: DocumentKey;
  readonly #keys: Map<string, Buffer>;

  constructor(current: DocumentKey, previous: DocumentKey[] = []) {
    this.current = current;
    this.#keys = new Map([...previous, current].map((k) => [k.id, k.key]));
  }

  /** The ids of every key this cipher reads: the current one and the previous ones. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  encrypt(storageKey: string, plain: Uint8Array): { keyId: string; bytes: Buffer } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(storageKey, 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return { keyId: this.current.id, bytes: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  decrypt(storageKey: string, keyId: string, sealed: Uint8Array): Buffer {
    const key = this.#keys.get(keyId);
    if (!key) {
      throw new Error(
        `document ${storageKey} is encrypted under key ${keyId}, which this process does not have: set it in ` +
          'DOCUMENT_ENCRYPTION_PREVIOUS_KEYS',
      );
    }
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(storageKey, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
  }
}
