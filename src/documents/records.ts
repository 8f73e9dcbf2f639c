import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';

/**
 * The documents table as onboarding changes it, in the onboarding's transaction: new documents, new URLs of
 * existing ones (a new generation, to fetch again) and documents removed. Each statement handles a whole batch.
 */

/** New documents, `pending` until their fetch job stores the file. */
export async function insertDocuments(
  tx: Queryable,
  integratorId: string,
  documents: { id: string; user_id: string; tenancy_id: string | null; kind: string; source_url: string }[],
  now: Date,
): Promise<void> {
  if (documents.length === 0) return;
  await tx.query(
    `INSERT INTO documents (id, integrator_id, user_id, tenancy_id, kind, source_url, created_at, updated_at)
     SELECT x.id, $2, x.user_id, x.tenancy_id, x.kind, x.source_url, $3, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, user_id text, tenancy_id text, kind text, source_url text)`,
    [documents, integratorId, now],
  );
}

const REPLACE_SOURCES = sqlStatement(
  Col.row({ id: Col.text, generation: Col.int }),
  `UPDATE documents d SET source_url = x.url, generation = d.generation + 1, state = 'pending', sha256 = NULL,
          size_bytes = NULL, content_type = NULL, storage_key = NULL, failure_reason = NULL, attempts = 0,
          updated_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS x(user_id text, kind text, url text)
    WHERE d.user_id = x.user_id AND d.kind = x.kind
    RETURNING d.id, d.generation`,
);

/** New URLs of a user's documents: each becomes a new generation, `pending`, its stored file forgotten. */
export function replaceDocumentSources(
  tx: Queryable,
  changes: { user_id: string; kind: string; url: string }[],
  now: Date,
): Promise<{ id: string; generation: number }[]> {
  if (changes.length === 0) return Promise.resolve([]);
  return REPLACE_SOURCES.rows(tx, [changes, now]);
}

/** Removes a user's documents of these kinds. */
export async function deleteDocuments(
  tx: Queryable,
  deletes: { user_id: string; kind: string }[],
): Promise<void> {
  if (deletes.length === 0) return;
  await tx.query(
    `DELETE FROM documents d USING jsonb_to_recordset($1::jsonb) AS x(user_id text, kind text)
      WHERE d.user_id = x.user_id AND d.kind = x.kind`,
    [deletes],
  );
}
