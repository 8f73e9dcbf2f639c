import type { FastifyRequest } from 'fastify';
import type { Actor } from '../audit/actor.ts';
import { CLI_USER_AGENT } from '../shared/vocabulary.ts';

/** The operator token that made an Operator API request (from the CLI or another client), as its changes are audited. */
export function operatorTokenActor(request: FastifyRequest): Actor {
  return {
    kind: 'operator_token',
    via: request.headers['user-agent'] === CLI_USER_AGENT ? 'cli' : 'api',
    address: request.ip,
    requestId: request.id,
  };
}
