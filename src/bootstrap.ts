import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from './audit/actor.ts';
import { ensureOperatorToken } from './operator/credentials.ts';
import { claimDeploymentState, recordDeploymentState } from './platform/db/deployment-state.ts';

export interface BootstrapSecrets {
  operatorToken?: string;
  demo?: { integratorId: string; serverToken: string };
}

/**
 * First start of a deployment: generates the operator token when none is configured and, in sandbox, a demo
 * integrator. Each is created by exactly one process, which alone receives the secret to print.
 */
export async function bootstrapDeployment(app: FastifyInstance): Promise<BootstrapSecrets> {
  const { db, clock, config, integrators } = app.ctx;
  const secrets: BootstrapSecrets = {};
  const operatorToken = await ensureOperatorToken(db, clock, config.operatorToken);
  if (operatorToken) secrets.operatorToken = operatorToken;
  if (config.serviceEnv !== 'sandbox') return secrets;
  if (!(await claimDeploymentState(db, 'demo_integrator', clock.now()))) return secrets;
  const { integrator, serverToken } = await integrators.create(
    {
      name: 'Demo platform',
      allowed_origins: [config.publicUrl],
    },
    SYSTEM_ACTOR,
  );
  await recordDeploymentState(db, 'demo_integrator', { integrator_id: integrator.id }, clock.now());
  secrets.demo = { integratorId: integrator.id, serverToken };
  return secrets;
}
