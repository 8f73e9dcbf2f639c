import type { FastifyPluginAsync } from 'fastify';
import { installApiDocument } from '../platform/http/openapi.ts';
import { registerRoutes } from '../platform/http/routes.ts';
import { cancelScheduleRoute } from './routes/cancel-schedule.ts';
import { completeSetUpRoute } from './routes/complete-set-up.ts';
import { exportPaymentsRoute } from './routes/export-payments.ts';
import { getDocumentRoute } from './routes/get-document.ts';
import { getEventRoute } from './routes/get-event.ts';
import { getHomeRoute } from './routes/get-home.ts';
import { getMeRoute } from './routes/get-me.ts';
import { getPaymentRoute } from './routes/get-payment.ts';
import { getSettingsRoute } from './routes/get-settings.ts';
import { getTenancyLedgerRoute } from './routes/get-tenancy-ledger.ts';
import { getTenantRoute } from './routes/get-tenant.ts';
import { getWebhookEndpointRoute } from './routes/get-webhook-endpoint.ts';
import { invitePersonRoute } from './routes/invite-person.ts';
import { listAuditLogRoute } from './routes/list-audit-log.ts';
import { listEventsRoute } from './routes/list-events.ts';
import { listHeldPayoutsRoute } from './routes/list-held-payouts.ts';
import { listPayoutsRoute } from './routes/list-payouts.ts';
import { listTeamRoute } from './routes/list-team.ts';
import { lookUpInviteRoute } from './routes/look-up-invite.ts';
import { operatorApprovePayeeRoute } from './routes/operator-approve-payee.ts';
import { operatorCancelPayoutRunRoute } from './routes/operator-cancel-payout-run.ts';
import { operatorConfirmPayoutRunRoute } from './routes/operator-confirm-payout-run.ts';
import { operatorCreateIntegratorRoute } from './routes/operator-create-integrator.ts';
import { operatorCreatePayoutRunRoute } from './routes/operator-create-payout-run.ts';
import { operatorGetHealthRoute } from './routes/operator-get-health.ts';
import { operatorGetPayoutRunRoute } from './routes/operator-get-payout-run.ts';
import { operatorGetPayoutRunFileRoute } from './routes/operator-get-payout-run-file.ts';
import { operatorListAuditLogRoute } from './routes/operator-list-audit-log.ts';
import { operatorListIntegratorsRoute } from './routes/operator-list-integrators.ts';
import { operatorListPayoutRunsRoute } from './routes/operator-list-payout-runs.ts';
import { operatorListPendingPayeesRoute } from './routes/operator-list-pending-payees.ts';
import { operatorReissueTokenRoute } from './routes/operator-reissue-token.ts';
import { operatorSuspendIntegratorRoute } from './routes/operator-suspend-integrator.ts';
import { operatorUnsuspendIntegratorRoute } from './routes/operator-unsuspend-integrator.ts';
import { pauseScheduleRoute } from './routes/pause-schedule.ts';
import { previewRefundRoute } from './routes/preview-refund.ts';
import { redeliverEventRoute } from './routes/redeliver-event.ts';
import { refundPaymentRoute } from './routes/refund-payment.ts';
import { removePersonRoute } from './routes/remove-person.ts';
import { resumeScheduleRoute } from './routes/resume-schedule.ts';
import { rotateApiTokenRoute } from './routes/rotate-api-token.ts';
import { rotateWebhookSecretRoute } from './routes/rotate-webhook-secret.ts';
import { searchPaymentsRoute } from './routes/search-payments.ts';
import { searchTenantsRoute } from './routes/search-tenants.ts';
import { sendTestWebhookRoute } from './routes/send-test-webhook.ts';
import { setPersonRoleRoute } from './routes/set-person-role.ts';
import { setWebhookEndpointRoute } from './routes/set-webhook-endpoint.ts';
import { signInRoute } from './routes/sign-in.ts';
import { signInWithPasskeyRoute } from './routes/sign-in-with-passkey.ts';
import { signOutRoute } from './routes/sign-out.ts';
import { startPasskeySetUpRoute } from './routes/start-passkey-set-up.ts';
import { startPasskeySignInRoute } from './routes/start-passkey-sign-in.ts';
import { updateSettingsRoute } from './routes/update-settings.ts';
import { dashboardGuard } from './session-auth.ts';

/**
 * The dashboard's API under /api/dashboard, for its own pages: a person signs in (password and authenticator-app
 * code, or a passkey) and their browser holds a session cookie. Its OpenAPI document (GET
 * /api/dashboard/openapi.json) is public; every other route is guarded (dashboardGuard).
 */
export const dashboardApi: FastifyPluginAsync = async (app) => {
  await installApiDocument(app, {
    decorator: 'dashboardApiDocument',
    title: 'rentpay Dashboard API',
    description:
      'The API behind the dashboard’s pages, for a person signed in to it: their session is a cookie (HttpOnly, ' +
      'SameSite=Strict), and every request that changes something must come from the dashboard’s own origin ' +
      '(Origin header) with the session’s CSRF token in `X-CSRF-Token`. Each person has one role; a request ' +
      'their role does not allow gets 403 `forbidden`. Programs use the Integration API with a server token ' +
      'instead.\n\nErrors are JSON: `{"error", "detail"}`, or for invalid fields an object of dotted paths to messages.',
    publicUrl: app.ctx.config.publicUrl,
    security: [
      'DashboardSession',
      {
        type: 'apiKey',
        in: 'cookie',
        name: app.ctx.dashboardCookie.name,
        description: 'The session cookie set by signing in.',
      },
    ],
    tags: [
      { name: 'Signing in', description: 'Setting up a sign-in from an invite, signing in and out.' },
      {
        name: 'Developers',
        description: 'The server token, the webhook endpoint, events and their deliveries.',
      },
      { name: 'Team', description: 'The people of the team, their roles, and the audit log.' },
      {
        name: 'Operator console',
        description:
          'For the operator’s staff only: every integrator and its health, creating, suspending and reissuing ' +
          'tokens, the whole audit log, system health, payout runs and landlord account approvals.',
      },
      {
        name: 'Home',
        description:
          'The home page’s figures: collection, arrears, payments and payouts waiting, webhook health.',
      },
      {
        name: 'Payments',
        description: 'Searching payments, one payment’s timeline, refunds and the CSV export.',
      },
      {
        name: 'Tenants',
        description: 'Tenants, their tenancies and ledgers, schedules (pause, resume, cancel) and documents.',
      },
      { name: 'Payouts', description: 'The platform’s payouts to landlords, and the rent held back.' },
      { name: 'Settings', description: 'Fees, rent reminders and allowed origins.' },
    ],
  });
  await app.register(async (guarded) => {
    guarded.addHook('onRoute', (route) => {
      route.config = { ...route.config, ownAuthFailureLimit: true };
    });
    guarded.addHook(
      'onRequest',
      dashboardGuard(app.ctx.dashboardSessions, app.ctx.dashboardCookie, app.ctx.config.publicUrl),
    );
    await registerRoutes(guarded, [
      cancelScheduleRoute,
      completeSetUpRoute,
      exportPaymentsRoute,
      getDocumentRoute,
      getEventRoute,
      getHomeRoute,
      getMeRoute,
      getPaymentRoute,
      getSettingsRoute,
      getTenancyLedgerRoute,
      getTenantRoute,
      getWebhookEndpointRoute,
      invitePersonRoute,
      listAuditLogRoute,
      listEventsRoute,
      listHeldPayoutsRoute,
      listPayoutsRoute,
      listTeamRoute,
      lookUpInviteRoute,
      operatorApprovePayeeRoute,
      operatorCancelPayoutRunRoute,
      operatorConfirmPayoutRunRoute,
      operatorCreateIntegratorRoute,
      operatorCreatePayoutRunRoute,
      operatorGetHealthRoute,
      operatorGetPayoutRunRoute,
      operatorGetPayoutRunFileRoute,
      operatorListAuditLogRoute,
      operatorListIntegratorsRoute,
      operatorListPayoutRunsRoute,
      operatorListPendingPayeesRoute,
      operatorReissueTokenRoute,
      operatorSuspendIntegratorRoute,
      operatorUnsuspendIntegratorRoute,
      pauseScheduleRoute,
      previewRefundRoute,
      redeliverEventRoute,
      refundPaymentRoute,
      removePersonRoute,
      resumeScheduleRoute,
      rotateApiTokenRoute,
      rotateWebhookSecretRoute,
      searchPaymentsRoute,
      searchTenantsRoute,
      sendTestWebhookRoute,
      setPersonRoleRoute,
      setWebhookEndpointRoute,
      signInRoute,
      signInWithPasskeyRoute,
      signOutRoute,
      startPasskeySetUpRoute,
      startPasskeySignInRoute,
      updateSettingsRoute,
    ]);
  });
};
