import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { clientOf } from '../../support/payment-client.ts';
import { startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

describe('GET /api/dashboard/tenants/ (searchTenants)', () => {
  // The clock starts at 2026-03-01T09:00Z: a tenancyBody's £1200.00 fell due on 1 January, 1 February and 1 March.
  let s: TenantPages;
  before(async () => {
    s = await startTenantPages();
    const onboard = async (user: Record<string, unknown>) => {
      s.d.t.clock.advance(1000);
      await s.api.onboardOk(userBody(user));
    };
    await onboard({
      user_id: 101,
      email: 'Ada@Example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      tenant: [tenancyBody({ payment_reference: 'ADA-1' })],
    });
    await onboard({
      user_id: 102,
      email: 'grace.hopper@navy.example',
      first_name: 'Grace',
      last_name: 'Hopper',
      tenant: [tenancyBody({ payment_reference: 'Navy/7 “east”' })],
    });
    await onboard({
      user_id: 103,
      email: 'alan@example.com',
      first_name: 'Alan',
      last_name: 'Turing',
      tenant: [tenancyBody({ payment_reference: 'AT-1' }), tenancyBody({ payment_reference: 'AT-2' })],
    });
    await s.otherApi.onboardOk(
      userBody({ user_id: 101, email: 'ada@other.example', first_name: 'Ada', last_name: 'Other' }),
    );
    const { token } = await s.api.loginOk('ada@example.com', 'ADA-1');
    await cardPayment(s.d.t, clientOf(s.d.t, token));
  });
  after(() => s.d.t.close());

  const search = (query = '') => s.d.support.get(`/tenants/${query}`);
  const ids = async (query: string) => {
    const answer = await search(query);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.data.map((row: { user_id: number }) => row.user_id);
  };

  it('200: every tenant newest first, with their tenancies and what they owe over all of them', async () => {
    const answer = await search();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      data: [
        { user_id: 103, email: 'alan@example.com', name: 'Alan Turing', tenancies: 2, arrears: '7200.00' },
        {
          user_id: 102,
          email: 'grace.hopper@navy.example',
          name: 'Grace Hopper',
          tenancies: 1,
          arrears: '3600.00',
        },
        { user_id: 101, email: 'Ada@Example.com', name: 'Ada Lovelace', tenancies: 1, arrears: '2400.00' },
      ],
      has_more: false,
    });
  });

  it('q: the start of an email, a name or a payment reference in any case, or a user_id', async () => {
    assert.deepEqual(await ids('?q=ADA@'), [101], 'email');
    assert.deepEqual(await ids('?q=grace%20h'), [102], 'first and last name');
    assert.deepEqual(await ids('?q=turi'), [103], 'last name');
    assert.deepEqual(await ids('?q=navy%2F7'), [102], 'payment reference');
    assert.deepEqual(await ids('?q=at-2'), [103], 'another tenancy’s reference');
    assert.deepEqual(await ids('?q=102'), [102], 'user_id');
    assert.deepEqual(await ids('?q=a'), [103, 101], 'several');
    assert.deepEqual(await ids('?q=%20%20alan%20'), [103], 'spaces around it are ignored');
    assert.deepEqual(await ids('?q=example.com'), [], 'not the middle of an email');
    assert.deepEqual(await ids('?q=%25'), [], 'a % is a %, not a wildcard');
    assert.deepEqual(await ids('?q=_'), [], 'an _ is an _');
  });

  it('pages with limit and starting_after (the last user_id of a page)', async () => {
    const first = await search('?limit=2');
    assert.deepEqual(
      first.body.data.map((row: { user_id: number }) => row.user_id),
      [103, 102],
    );
    assert.equal(first.body.has_more, true);
    const next = await search('?limit=2&starting_after=102');
    assert.deepEqual(
      next.body.data.map((row: { user_id: number }) => row.user_id),
      [101],
    );
    assert.equal(next.body.has_more, false);
    assert.deepEqual(await ids('?q=a&starting_after=103'), [101], 'with a search');
  });

  it('400 for a cursor that is not one of the platform’s tenants, a limit out of range or an unknown field', async () => {
    assertError(await search('?starting_after=999'), 400, 'invalid_request', /starting_after: No tenant 999/);
    const answer = await search('?limit=0');
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal((await search('?email=ada')).status, 400);
  });

  it('another platform’s tenants are never found; the operator’s staff get 403', async () => {
    const theirs = await s.stranger.get('/tenants/?q=ada');
    assert.deepEqual(
      theirs.body.data.map((row: { email: string }) => row.email),
      ['ada@other.example'],
    );
    assertError(
      await s.stranger.get('/tenants/?starting_after=103'),
      400,
      'invalid_request',
      /No tenant 103/,
    );
    assertError(await s.operatorStaff.get('/tenants/'), 403, 'forbidden', /platform’s team/);
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/tenants/');
});
