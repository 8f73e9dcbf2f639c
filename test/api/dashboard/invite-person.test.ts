import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import {
  DASHBOARD,
  type DashboardApp,
  fromDashboard,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('POST /api/dashboard/team/invites/ (invitePerson)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('201: an admin invites a person: the set-up link works; the audit entry names the admin', async () => {
    const answer = await d.admin.post('/team/invites/', { email: 'kim@platform.example', role: 'finance' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.person.status, 'invited');
    assert.match(
      answer.body.link,
      /^http:\/\/127\.0\.0\.1:8080\/dashboard\/setup#invite=rpi_[A-Za-z0-9]{40}$/,
    );
    const invite = answer.body.link.split('#invite=')[1];
    const looked = await send(d.t, {
      method: 'POST',
      url: `${DASHBOARD}/setup/invite/`,
      headers: fromDashboard(d.t),
      payload: { invite },
    });
    assert.equal(looked.body.role, 'finance');
    const log = await d.admin.get('/audit-log/?limit=1');
    assert.equal(log.body.data[0].action, 'team.invite');
    assert.equal(log.body.data[0].actor.email, 'admin@platform.example');
    assert.equal(JSON.stringify(log.body).includes(invite), false);
  });

  it('400 for an operator role or a bad email; 409 for someone already in a team', async () => {
    const role = await d.admin.post('/team/invites/', {
      email: 'a@platform.example',
      role: 'operator_admin',
    });
    assert.deepEqual(role.body, { role: ['Choose one of: admin, developer, finance, support.'] });
    const email = await d.admin.post('/team/invites/', { email: 'not an email', role: 'support' });
    assert.deepEqual(email.body, { email: ['Enter a valid email address.'] });
    assertError(
      await d.admin.post('/team/invites/', { email: 'support@platform.example', role: 'finance' }),
      409,
      'conflict',
      /change their role instead/,
    );
  });

  it('403 for a developer', async () => {
    assertError(
      await d.developer.post('/team/invites/', { email: 'b@platform.example', role: 'admin' }),
      403,
      'forbidden',
      /team\.manage/,
    );
  });

  itRefusesWithoutASession(() => d, 'POST', '/team/invites/', {
    email: 'c@platform.example',
    role: 'support',
  });
});
