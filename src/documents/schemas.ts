import { Type } from 'typebox';
import { IdString } from '../platform/http/schemas.ts';

/** The path of a route that opens a stored document: GET …/documents/{document_id}/. */
export const DocumentParams = Type.Object({ document_id: IdString('doc', 'a document') });
