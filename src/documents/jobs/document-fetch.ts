import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';
import type { Clock } from '../../platform/clock/clock.ts';
import { Col, sqlStatement } from '../../platform/db/checked-sql.ts';
import type { Db } from '../../platform/db/db.ts';
import { defineJob, jobHandler, STANDARD_RETRY } from '../../platform/jobs/define.ts';
import type { JobContext, JobHandler } from '../../platform/jobs/queue.ts';
import { type AddressPolicy, type SafeFetchSuccess, safeFetch } from '../../platform/net/safe-fetch.ts';
import { recordEvent } from '../../webhooks/record-event.ts';
import { checkDocumentContent, DOCUMENT_KINDS } from '../content-type.ts';
import type { DocumentEventData } from '../events.ts';
import { type DocumentStore, documentStorageKey } from '../storage.ts';

export interface DocumentFetchOptions {
  store: DocumentStore;
  /** ALLOW_PRIVATE_DOCUMENT_HOSTS: lifts the address rule, for local testing only. */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  /** Replaces the public-only address rule (tests); ignored when allowPrivate is set. */
  isAllowedAddress?: AddressPolicy;
  /** Documents this deployment serves itself (the sandbox's sample agreement), read without a request. */
  ownDocument?: (url: string) => Buffer | undefined;
}

const DOCUMENT_TO_FETCH = Col.row({
  id: Col.text,
  integrator_id: Col.text,
  kind: Type.Enum(DOCUMENT_KINDS),
  source_url: Col.text,
  generation: Col.int,
  state: Col.text,
  external_user_id: Col.int,
  payment_reference: Col.nullable(Col.text),
});
type DocumentToFetch = Static<typeof DOCUMENT_TO_FETCH>;

const LOAD_DOCUMENT = sqlStatement(
  DOCUMENT_TO_FETCH,
  `
  SELECT d.id, d.integrator_id, d.kind, d.source_url, d.generation, d.state,
         u.external_id AS external_user_id, t.payment_reference
    FROM documents d
    JOIN users u ON u.id = d.user_id
    LEFT JOIN tenancies t ON t.id = d.tenancy_id
   WHERE d.id = $1`,
);

/** Every write is guarded so a job for an older URL, or one that already finished, changes nothing. */
const STILL_PENDING = 'WHERE id = $1 AND generation = $2 AND state = $3';

async function markFailed(db: Db, clock: Clock, document: DocumentToFetch, reason: string): Promise<boolean> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const updated = await tx.query(
      `UPDATE documents SET state = 'failed', failure_reason = $4, attempts = attempts + 1, updated_at = $5
        ${STILL_PENDING} RETURNING id`,
      [document.id, document.generation, 'pending', reason, now],
    );
    if (updated.length === 0) return false;
    const data: DocumentEventData = {
      user_id: Number(document.external_user_id),
      payment_reference: document.payment_reference,
      document: {
        document_id: document.id,
        kind: document.kind,
        url: document.source_url,
        state: 'failed',
        updated_at: now.toISOString(),
      },
      failure_reason: reason,
    };
    await recordEvent(tx, clock, document.integrator_id, 'document_failed', data);
    return true;
  });
}

/**
 * Fetches a document an integrator linked to, checks what it is and stores it with its SHA-256. Permanent failures
 * (refused address, wrong type, too large, 4xx...) fail the document at once with a `document_failed` event;
 * transient ones throw so the queue retries with backoff, until the job's last attempt, which fails the document.
 */
/**
 * Fetches a document's file from its URL (public addresses only, bounded size and time), checks its content and
 * stores it encrypted; enqueued by onboarding in the transaction that writes the row, once per URL generation.
 */
export const documentFetchJob = defineJob({
  kind: 'document.fetch',
  summary: 'Fetches an agreement or KYC file from its URL, checks it and stores it encrypted',
  payload: Type.Object({
    document_id: Type.String(),
    generation: Type.Integer({ minimum: 1 }),
    integrator_id: Type.Optional(Type.String()),
  }),
  // A host that fails five times is not coming back soon; the document is marked failed on the last.
  retry: { ...STANDARD_RETRY, maxAttempts: 5 },
  dedupeKey: ({ document_id, generation }) => `document.fetch:${document_id}:${generation}`,
  fairKey: ({ integrator_id }) => integrator_id,
  run: (options: DocumentFetchOptions) => (payload, ctx) => fetchDocument(options, payload, ctx),
});

/** The fetch job on its store and address rules: the worker's handler. */
export function documentFetchHandler(options: DocumentFetchOptions): JobHandler {
  return jobHandler(documentFetchJob, options);
}

async function fetchDocument(
  options: DocumentFetchOptions,
  { document_id, generation }: { document_id: string; generation: number },
  { job, db, clock, log }: JobContext,
): Promise<void> {
  const document = await LOAD_DOCUMENT.first(db, [document_id]);
  if (!document || document.generation !== generation || document.state !== 'pending') {
    log.info(
      { document_id, generation, state: document?.state },
      'document fetch skipped: the document is gone, replaced or already settled',
    );
    return;
  }
  const lastAttempt = job.attempts >= job.max_attempts;
  const docLog = log.child({ document_id: document.id, document_kind: document.kind });

  const failPermanently = async (reason: string) => {
    const changed = await markFailed(db, clock, document, reason);
    docLog.warn({ reason, changed }, 'document failed');
  };

  const own = options.ownDocument?.(document.source_url);
  const fetched = own
    ? ownDocumentFetched(document.source_url, own)
    : await safeFetch(document.source_url, {
        allowPrivate: options.allowPrivate,
        isAllowedAddress: options.isAllowedAddress,
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        label: 'document',
      });
  if (!fetched.ok) {
    if (fetched.permanent || lastAttempt) return failPermanently(fetched.reason);
    await db.query(`UPDATE documents SET attempts = attempts + 1, updated_at = $4 ${STILL_PENDING}`, [
      document.id,
      document.generation,
      'pending',
      clock.now(),
    ]);
    throw new Error(`Document fetch failed, will retry: ${fetched.reason}`);
  }

  const content = checkDocumentContent(document.kind, fetched.bytes);
  if (!content.ok) return failPermanently(content.reason);

  const storageKey = documentStorageKey(document.integrator_id, document.id, fetched.sha256);
  try {
    await options.store.put(storageKey, fetched.bytes);
  } catch (error) {
    if (!lastAttempt) throw error;
    docLog.error({ err: error }, 'could not store the document on the last attempt');
    return failPermanently('The document could not be stored.');
  }
  const stored = await db.query(
    `UPDATE documents SET state = 'stored', sha256 = $4, size_bytes = $5, content_type = $6, storage_key = $7,
            failure_reason = NULL, attempts = attempts + 1, updated_at = $8
      ${STILL_PENDING} RETURNING id`,
    [
      document.id,
      document.generation,
      'pending',
      fetched.sha256,
      fetched.size,
      content.contentType,
      storageKey,
      clock.now(),
    ],
  );
  docLog.info({ size_bytes: fetched.size, stored: stored.length === 1 }, 'document stored');
}

function ownDocumentFetched(url: string, bytes: Buffer): SafeFetchSuccess {
  return {
    ok: true,
    status: 200,
    url,
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    contentType: 'application/pdf',
  };
}
