/**
 * The roles of the people who sign in to the dashboard, and what each may do. The services check these (the page
 * only hides what a role cannot use), so one table decides for every surface.
 */

/** A person of an integrator's team. */
export const INTEGRATOR_ROLES = ['admin', 'developer', 'finance', 'support'] as const;
/** A person of the operator's staff. */
export const OPERATOR_ROLES = ['operator_admin', 'operator_support'] as const;

/** Every role. */
export const ROLES = [...INTEGRATOR_ROLES, ...OPERATOR_ROLES] as const;

export type IntegratorRole = (typeof INTEGRATOR_ROLES)[number];
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export type Role = IntegratorRole | OperatorRole;

export const PERMISSIONS = [
  /** Invite people, change their roles, remove them. */
  'team.manage',
  /** Rotate or reissue server tokens. */
  'credentials.manage',
  /** Set the webhook URL, rotate its secret, send a test event, redeliver events. */
  'webhooks.manage',
  /** See events and their delivery attempts. */
  'events.read',
  /** See payments, tenants, tenancies, schedules, ledgers and payouts. */
  'payments.read',
  /** Refund a payment. */
  'refunds.create',
  /** Pause, resume or cancel a tenant's schedule. */
  'schedules.manage',
  /** Onboard tenants and their tenancies. */
  'tenants.manage',
  /** Open a tenant's identity documents and photo. */
  'kyc.read',
  /** Make, confirm and cancel payout runs; approve landlord accounts. */
  'payouts.manage',
  /** Change settings: fees, allowed origins, reminders, limits. */
  'settings.manage',
  /** Read the audit log. */
  'audit.read',
  /** The operator's work on integrators: create, suspend, unsuspend. */
  'integrators.manage',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const READ: readonly Permission[] = ['events.read', 'payments.read'];

/** What each role may do. */
export const GRANTS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: [
    ...READ,
    'team.manage',
    'credentials.manage',
    'webhooks.manage',
    'refunds.create',
    'schedules.manage',
    'tenants.manage',
    'kyc.read',
    'payouts.manage',
    'settings.manage',
    'audit.read',
  ],
  developer: [...READ, 'credentials.manage', 'webhooks.manage'],
  finance: [...READ, 'refunds.create', 'schedules.manage', 'payouts.manage'],
  support: [...READ, 'kyc.read'],
  operator_admin: PERMISSIONS,
  operator_support: [...READ, 'kyc.read', 'audit.read'],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** Roles that can move money or change credentials: in production their people must use a second factor. */
export function movesMoney(role: Role): boolean {
  return (['refunds.create', 'payouts.manage', 'credentials.manage'] as const).some((p) => can(role, p));
}
