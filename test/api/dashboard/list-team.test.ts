import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  signedInPerson,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('GET /api/dashboard/team/ (listTeam)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('200 for an admin: their team oldest first, with each person’s status; no other team’s people', async () => {
    const other = await d.t.createIntegrator({ name: 'Other' });
    await signedInPerson(d.t, { team: other.id, email: 'x@other.example', role: 'admin' });
    d.t.clock.advance(1000);
    await d.admin.post('/team/invites/', { email: 'new@platform.example', role: 'support' });
    const answer = await d.admin.get('/team/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.data.map((p: { email: string; role: string; status: string }) => [
        p.email,
        p.role,
        p.status,
      ]),
      [
        ['admin@platform.example', 'admin', 'active'],
        ['developer@platform.example', 'developer', 'active'],
        ['finance@platform.example', 'finance', 'active'],
        ['support@platform.example', 'support', 'active'],
        ['new@platform.example', 'support', 'invited'],
      ],
    );
  });

  it('403 for every other role', async () => {
    for (const person of [d.developer, d.finance, d.support]) {
      assertError(await person.get('/team/'), 403, 'forbidden', /team\.manage/);
    }
  });

  itRefusesWithoutASession(() => d, 'GET', '/team/');
});
