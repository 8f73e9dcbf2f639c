import type { Logger } from 'pino';
import { type Actor, requirePermission } from '../audit/actor.ts';
import { recordAudit } from '../audit/log.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { DocumentStore } from './storage.ts';

export interface StoredDocument {
  bytes: Buffer;
  contentType: string;
  sha256: string;
}

export type DocumentKind = 'agreement' | 'pii_front' | 'pii_back' | 'photo';

/** A document as a list shows it: no contents, no source link. */
export interface DocumentListing {
  id: string;
  kind: DocumentKind;
  state: 'pending' | 'stored' | 'failed';
  /** The tenancy's, for an agreement; null for a KYC file. */
  payment_reference: string | null;
  updated_at: Date;
}

/** Reading stored documents back, and moving files an older release kept on a node's disk into the shared store. */
export class DocumentService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly store: DocumentStore,
  ) {}

  /**
   * A stored document of this integrator; undefined for an unknown one, another integrator's, or one not stored.
   * A KYC document (identity document or photo) needs `kyc.read`, a tenancy agreement `payments.read`. Reading a KYC
   * document is audited as the actor's before its bytes are returned, and so is a person's (the dashboard's) reading
   * of an agreement: a platform's own systems fetch agreements as a matter of course.
   */
  async read(integratorId: string, documentId: string, actor: Actor): Promise<StoredDocument | undefined> {
    const row = await firstRow(
      this.db,
      qb
        .selectFrom('documents')
        .select(['storage_key', 'content_type', 'sha256', 'kind', 'user_id'])
        .where('id', '=', documentId)
        .where('integrator_id', '=', integratorId)
        .where('state', '=', 'stored')
        .where('storage_key', 'is not', null)
        .$narrowType<{ storage_key: string; content_type: string; sha256: string }>(),
    );
    if (!row) return undefined;
    const kyc = row.kind !== 'agreement';
    // Refused before the file is read: a role without the permission costs no storage read.
    requirePermission(actor, kyc ? 'kyc.read' : 'payments.read');
    const bytes = await this.store.get(row.storage_key);
    if (!bytes) return undefined;
    if (kyc || actor.kind === 'dashboard_user') {
      await this.db.transaction((tx) =>
        recordAudit(tx, this.clock, actor, {
          scope: integratorId,
          action: kyc ? 'kyc_document.view' : 'agreement_document.view',
          target: { type: 'document', id: documentId },
          after: { kind: row.kind, user_id: row.user_id },
        }),
      );
    }
    return { bytes, contentType: row.content_type, sha256: row.sha256 };
  }

  /**
   * A user's documents (our user id), each tenancy's agreement (with its payment reference) and the KYC files, by
   * kind and then reference: what they are and whether they are stored, never their contents or links.
   */
  async ofUser(integratorId: string, userId: string): Promise<DocumentListing[]> {
    return rows(
      this.db,
      qb
        .selectFrom('documents as d')
        .leftJoin('tenancies as t', 't.id', 'd.tenancy_id')
        .select(['d.id', 'd.kind', 'd.state', 't.payment_reference', 'd.updated_at'])
        .where('d.user_id', '=', userId)
        .where('d.integrator_id', '=', integratorId)
        .orderBy('d.kind')
        .orderBy('t.payment_reference')
        .orderBy('d.id'),
    );
  }

  /**
   * Moves every stored document whose file is only on this node's disk (`legacy`, DOCUMENTS_DIR) into the store,
   * then deletes the file. Safe on every start and on several nodes at once (a put of a key already there is a
   * no-op); a file this node does not have is left for the node that does. Returns how many moved.
   */
  async moveFromDisk(legacy: DocumentStore, log: Logger): Promise<number> {
    const onDisk = await rows(
      this.db,
      qb
        .selectFrom('documents as d')
        .select('d.storage_key')
        .distinct()
        .where('d.storage_key', 'is not', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('document_files as f')
                .select('f.storage_key')
                .whereRef('f.storage_key', '=', 'd.storage_key'),
            ),
          ),
        )
        .$narrowType<{ storage_key: string }>(),
    );
    let moved = 0;
    for (const { storage_key: key } of onDisk) {
      const bytes = await legacy.get(key);
      if (!bytes) continue;
      await this.store.put(key, bytes);
      await legacy.delete(key);
      moved += 1;
    }
    if (rows.length > 0)
      log.info({ moved, missing: rows.length - moved }, 'documents moved from disk into the database');
    return moved;
  }
}
