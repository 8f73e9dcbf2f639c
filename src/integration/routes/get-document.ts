import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DocumentParams } from '../../documents/schemas.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { sendStoredFile, storedFileResponse } from '../../platform/http/stored-file.ts';
import { serverTokenActor } from '../actor.ts';

export const getDocumentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/documents/:document_id/',
    {
      schema: {
        operationId: 'getDocument',
        summary: 'Download a stored document (agreement or KYC file)',
        description:
          'The bytes rentpay fetched and stored from a document link, with their content type (`application/pdf`, ' +
          '`image/jpeg` or `image/png`) and `ETag` (their SHA-256). The `document_id` is in the session query ' +
          '(`tenancy.agreement_document`, `user.kyc_documents`) once the document is `stored`. Any node serves any ' +
          'document.',
        tags: ['Documents'],
        params: DocumentParams,
        response: { 200: storedFileResponse(), ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const { document_id: documentId } = request.params;
      const stored = await app.ctx.documents.read(
        request.integrator.id,
        documentId,
        serverTokenActor(request),
      );
      // Another integrator's document answers exactly as an unknown one.
      if (!stored) {
        throw new ServiceError(
          'not_found',
          `No stored document ${documentId}. Use a document_id from the session query; it is set once the ` +
            'document is stored, and a document is visible only to the integrator that onboarded it.',
        );
      }
      return sendStoredFile(reply, stored);
    },
  );
};
