-- Documents' bytes live in the database, so every node serves every document (no node-local disk). Each file is
-- AES-256-GCM ciphertext (12-byte IV, ciphertext, 16-byte tag) under the key named by key_id, so keys can rotate.
CREATE TABLE document_files (
  storage_key text PRIMARY KEY,
  key_id text NOT NULL,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL
);
