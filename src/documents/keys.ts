import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config/config.ts';
import { DocumentCipher, documentKey } from './cipher.ts';

const SANDBOX_KEY_FILE = 'document-encryption.key';

/**
 * The cipher of stored documents: DOCUMENT_ENCRYPTION_KEY (and the previous keys), or in sandbox without one a key
 * generated once and kept in DATA_DIR/document-encryption.key (in memory for an in-memory DATA_DIR). Several sandbox
 * nodes on one PostgreSQL must share a DATA_DIR or set the key, or they cannot read each other's documents.
 */
export function documentCipherFor(config: Config): DocumentCipher {
  const previous = config.documentEncryptionPreviousKeys.map(documentKey);
  if (config.documentEncryptionKey)
    return new DocumentCipher(documentKey(config.documentEncryptionKey), previous);
  if (config.serviceEnv === 'production')
    throw new Error('DOCUMENT_ENCRYPTION_KEY is required in production');
  if (config.dataDir.startsWith('memory://'))
    return new DocumentCipher(documentKey(randomBytes(32)), previous);
  const file = path.join(config.dataDir, SANDBOX_KEY_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return new DocumentCipher(
    documentKey(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')),
    previous,
  );
}
