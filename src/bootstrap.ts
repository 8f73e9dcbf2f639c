import type { FastifyInstance } from 'fastify';
import { SYSTEM_ACTOR } from './audit/actor.ts';
import { ensureOperatorToken } from './operator/credentials.ts';
import { claimDeploymentState, recordDeploymentState } from './platform/db/deployment-state.ts';

export const DEMO_ADMIN_EMAIL = 'admin@demo-platform.example';

export interface BootstrapSecrets {
  operatorToken?: string;
  demo?: { integratorId: string; serverToken: string; adminInvite: { email: string; link: string } };
}

/**
 * First start of a deployment: generates the operator token when none is configured and, in sandbox, a demo
 * integrator and an invite for its first dashboard admin. Each is created by exactly one process, which alone receives the secret to print.
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
  // The demo platform's first admin, so the dashboard can be tried at once: their one-time set-up link is printed.
  const invited = await app.ctx.people.invite(SYSTEM_ACTOR, {
    team: integrator.id,
    email: DEMO_ADMIN_EMAIL,
    role: 'admin',
  });
  secrets.demo = {
    integratorId: integrator.id,
    serverToken,
    adminInvite: { email: DEMO_ADMIN_EMAIL, link: invited.link },
  };
  return secrets;
}
