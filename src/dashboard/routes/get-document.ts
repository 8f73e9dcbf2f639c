import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DocumentParams } from '../../documents/schemas.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { sendStoredFile, storedFileResponse } from '../../platform/http/stored-file.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** Opens one of the platform's stored documents: a tenancy agreement, or a KYC file. */
export const getDocumentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/documents/:document_id/',
    {
      schema: {
        operationId: 'getDocument',
        summary: 'Open a stored document (a tenancy agreement or a KYC file)',
        description:
          'The stored bytes with their content type and `ETag` (their SHA-256), as the Integration API’s GET ' +
          '/documents/{document_id}/ gives them. Every opening is in the audit log, naming the person ' +
          '(`agreement_document.view`, `kyc_document.view`). A KYC file (identity document, photo) needs ' +
          '`kyc.read` (admin, support); an agreement `payments.read`. 404 until the document is stored.',
        tags: ['Tenants'],
        params: DocumentParams,
        response: { 200: storedFileResponse(), ...integrationErrors({ 404: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const { document_id: documentId } = request.params;
      const stored = await app.ctx.documents.read(
        dashboardIntegrator(request),
        documentId,
        dashboardActor(request),
      );
      // Another platform's document answers exactly as an unknown one.
      if (!stored) {
        throw new ServiceError(
          'not_found',
          `No stored document ${documentId}. A tenant’s page lists their documents; one can be opened once stored.`,
        );
      }
      return sendStoredFile(reply, stored);
    },
  );
};
