import type { FastifyRequest } from 'fastify';
import type { Actor } from '../audit/actor.ts';

/** The server token that made an Integration API request, as its changes are audited. */
export function serverTokenActor(request: FastifyRequest): Actor {
  return {
    kind: 'server_token',
    integratorId: request.integrator.id,
    tokenId: request.serverTokenId,
    address: request.ip,
    requestId: request.id,
  };
}
