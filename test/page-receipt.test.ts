/**
 * A session paid already shows its receipt when the page opens again (a reload, the link reopened), never a
 * new Pay form; the Client API's session says which payment completed it. Real Chromium, the integrator's page.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CARD_FEES, newTenant, openInIntegratorPage, pageEnvironmentPerFile, screenshot } from './browser.ts';
import { cardToken, clientOf } from './payment-client.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });

describe('hosted page: a paid session', () => {
  it('opens on its receipt: "Rent paid", the amount and date, no Pay button', async () => {
    const tenant = await newTenant(file.env);
    const client = clientOf(file.env.t, tenant.token);
    const before = await client.call('GET', '/session');
    assert.equal(before.body.paid, null);
    const paid = await client.pay({
      card_token: await cardToken(file.env.t, '4242424242424242'),
      expected_amount: '1217.40',
    });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    const after = await client.call('GET', '/session');
    assert.equal(after.body.paid.payment_id, paid.body.payment_id);
    assert.equal(after.body.paid.amount, '1217.40');

    const { page, frame, context } = await openInIntegratorPage(file.env, tenant);
    file.contexts.push(context);
    await frame.getByRole('heading', { name: 'Rent paid' }).waitFor();
    assert.match(
      await frame.locator('.result').innerText(),
      new RegExp(`You paid £1,217\\.40 for ${tenant.paymentReference} on \\d{1,2} \\w+ \\d{4}\\.`),
    );
    await frame.getByText('This payment is complete: there is nothing more to pay here.').waitFor();
    assert.equal(await frame.getByRole('button', { name: /^Pay/ }).count(), 0);
    assert.equal(await frame.getByLabel('Card number').count(), 0);
    assert.match(await frame.locator('.summary').innerText(), new RegExp(paid.body.payment_id));
    await screenshot(page, 'page-receipt');
  });
});
