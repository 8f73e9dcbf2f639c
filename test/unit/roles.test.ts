/** Who may do what: every role against every permission, and the credentials that are not people. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Actor, requirePermission } from '../../src/audit/actor.ts';
import { ServiceError } from '../../src/platform/errors.ts';
import { can, movesMoney, PERMISSIONS, type Permission, type Role } from '../../src/shared/roles.ts';

// One row per permission: the roles that have it, in the order admin, developer, finance, support,
// operator_admin, operator_support.
const TABLE: Record<Permission, string> = {
  'team.manage': 'A . . . O .',
  'credentials.manage': 'A D . . O .',
  'webhooks.manage': 'A D . . O .',
  'events.read': 'A D F S O s',
  'payments.read': 'A D F S O s',
  'refunds.create': 'A . F . O .',
  'schedules.manage': 'A . F . O .',
  'tenants.manage': 'A . . . O .',
  'kyc.read': 'A . . S O s',
  'payouts.manage': 'A . F . O .',
  'settings.manage': 'A . . . O .',
  'audit.read': 'A . . . O s',
  'integrators.manage': '. . . . O .',
};
const ROLES: Role[] = ['admin', 'developer', 'finance', 'support', 'operator_admin', 'operator_support'];

describe('roles', () => {
  it('every role has exactly the permissions of the table, and the table names every permission', () => {
    assert.deepEqual(Object.keys(TABLE).sort(), [...PERMISSIONS].sort());
    for (const permission of PERMISSIONS) {
      const granted = TABLE[permission].split(' ').map((cell) => cell !== '.');
      for (const [i, role] of ROLES.entries()) {
        assert.equal(can(role, permission), granted[i], `${role} ${permission}`);
      }
    }
  });

  it('the roles that can move money or change credentials are the ones that need a second factor', () => {
    assert.deepEqual(ROLES.filter(movesMoney), ['admin', 'developer', 'finance', 'operator_admin']);
  });
});

describe('requirePermission', () => {
  const person = (role: Role): Actor => ({
    kind: 'dashboard_user',
    userId: 'dus_1',
    email: 'sam@example.com',
    role,
    integratorId: role.startsWith('operator') ? null : 'int_1',
  });
  const refused = (actor: Actor, permission: Permission): string | undefined => {
    try {
      requirePermission(actor, permission);
      return undefined;
    } catch (error) {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.code, 'forbidden');
      return error.message;
    }
  };

  it('a person is held to their role, and told which role and what it lacks', () => {
    assert.equal(refused(person('finance'), 'refunds.create'), undefined);
    assert.equal(
      refused(person('support'), 'refunds.create'),
      'Your role (support) does not allow this (refunds.create); ask an admin of your team.',
    );
    assert.match(refused(person('developer'), 'payouts.manage')!, /\(developer\)/);
  });

  it('a server token may do what an admin may, never the operator’s work', () => {
    const token: Actor = { kind: 'server_token', integratorId: 'int_1', tokenId: 'tok_1' };
    for (const permission of PERMISSIONS) {
      assert.equal(refused(token, permission) === undefined, can('admin', permission), permission);
    }
    assert.equal(
      refused(token, 'integrators.manage'),
      'This credential does not allow this (integrators.manage).',
    );
  });

  it('a tenant only changes schedules; the operator token, the CLI and rentpay itself may do everything', () => {
    const tenant: Actor = { kind: 'tenant', userId: 'usr_1', sessionId: 'ses_1' };
    assert.deepEqual(
      PERMISSIONS.filter((permission) => refused(tenant, permission) === undefined),
      ['schedules.manage'],
    );
    for (const actor of [
      { kind: 'operator_token', via: 'api' },
      { kind: 'cli', osUser: 'ops' },
      { kind: 'system' },
    ] as Actor[]) {
      for (const permission of PERMISSIONS) assert.equal(refused(actor, permission), undefined);
    }
  });
});
