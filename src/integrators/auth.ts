import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceEnv } from '../platform/config/config.ts';
import { ServiceError } from '../platform/errors.ts';
import { parseAuthorization, unauthorized } from '../platform/http/auth.ts';
import type { AuthFailureLimiter } from '../platform/http/auth-failures.ts';
import type { AuthenticatedIntegrator, Integrator, IntegratorService } from './service.ts';
import { isServerTokenShaped, SERVER_TOKEN_PREFIX, USER_SESSION_TOKEN_PREFIX } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    integrator: AuthenticatedIntegrator;
    serverTokenId: string;
  }
}

/** 403 integrator_suspended for a suspended integrator's tokens, on the Integration and Client APIs alike. */
export function assertNotSuspended(integrator: Pick<Integrator, 'status'>): void {
  if (integrator.status === 'suspended') {
    throw new ServiceError(
      'integrator_suspended',
      'This integrator is suspended by the operator; no payments can be made until it is reactivated. Contact the ' +
        'operator to have the suspension lifted.',
    );
  }
}

/** The 401 for a server token of the right form that is unknown, rotated out or expired. */
export const INVALID_SERVER_TOKEN =
  'Invalid or expired token. Send your newest server token (issued by the operator, or the last one rotate-token ' +
  'returned) as "Authorization: Token <server token>"; if it is lost, ask the operator to reissue it.';

/** onRequest hook for the Integration API: `Authorization: Token <server token>`. */
export function serverTokenAuth(
  integrators: IntegratorService,
  env: ServiceEnv,
  authFailures: Pick<AuthFailureLimiter, 'assertMayLookUp'>,
) {
  const ownPrefix = SERVER_TOKEN_PREFIX[env];
  const otherEnv: ServiceEnv = env === 'sandbox' ? 'production' : 'sandbox';
  const otherPrefix = SERVER_TOKEN_PREFIX[otherEnv];
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw unauthorized(
        'Authentication credentials were not provided. Send "Authorization: Token <server token>".',
      );
    }
    const parsed = parseAuthorization(header);
    if (!parsed) {
      throw unauthorized('Malformed Authorization header. Send "Authorization: Token <server token>".');
    }
    const { scheme, credentials } = parsed;
    if (credentials.startsWith(USER_SESSION_TOKEN_PREFIX)) {
      throw unauthorized(
        'This is a user session token, which is for the payment page and SDK. The Integration API takes your server ' +
          'token: send "Authorization: Token <server token>".',
      );
    }
    if (scheme.toLowerCase() !== 'token') {
      throw unauthorized(
        `Unsupported authorization scheme "${scheme}". Send "Authorization: Token <server token>".`,
      );
    }
    if (credentials.startsWith(otherPrefix)) {
      throw unauthorized(
        `This token belongs to the ${otherEnv} environment; this is the ${env} environment. Send your ${env} ` +
          `server token (it starts with "${ownPrefix}"), or send the request to your ${otherEnv} deployment.`,
      );
    }
    if (!credentials.startsWith(ownPrefix)) {
      throw unauthorized(`Invalid token. Server tokens for this environment start with "${ownPrefix}".`);
    }
    if (!isServerTokenShaped(credentials, env)) throw unauthorized(INVALID_SERVER_TOKEN);
    const result = await integrators.authenticate(credentials, () =>
      authFailures.assertMayLookUp(request.ip),
    );
    if (!result) throw unauthorized(INVALID_SERVER_TOKEN);
    assertNotSuspended(result.integrator);
    request.integrator = result.integrator;
    request.serverTokenId = result.tokenId;
  };
}
