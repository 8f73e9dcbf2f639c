import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertClientTokenRequired,
  assertIdChecked,
  cardPayment,
  paidTenant,
} from '../../support/operation-tests.ts';
import { newTenant, startPaymentApp } from '../../support/payment-client.ts';
import { assertInOrder, pdfText } from '../../support/pdf-text.ts';

describe('GET /api/client/payments/{payment_id}/receipt.pdf (getPaymentReceipt)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const receiptPath = (id: string) => `/payments/${id}/receipt.pdf`;

  it('200: the tenant’s receipt as a PDF, the same bytes as the platform’s, in this session and any later one', async () => {
    const owner = await paidTenant(t, api);
    const id = owner.payment.payment_id;
    for (const client of [owner.client, await owner.login()]) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/client${receiptPath(id)}`,
        headers: { authorization: `Bearer ${client.token}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/pdf');
      assert.equal(response.headers['content-disposition'], `attachment; filename="receipt-${id}.pdf"`);
      const pdf = await pdfText(response.rawPayload);
      assertInOrder(pdf.text, [
        'Rent receipt',
        `Receipt number ${id}`,
        'Visa •••• 4242',
        'Total paid £1,217.40',
      ]);
      const platforms = await t.app.inject({
        method: 'GET',
        url: `/api/third-party/payments/${id}/receipt.pdf`,
        headers: { authorization: `Token ${api.serverToken}` },
      });
      assert.ok(platforms.rawPayload.equals(response.rawPayload), 'the same receipt');
    }
  });

  it('400 for an id that is not a payment id; 404 for an unknown one; 409 for a payment that did not succeed', async () => {
    const { client } = await newTenant(t, api);
    await assertIdChecked(
      (id) => client.call('GET', receiptPath(id)),
      'payment_id',
      'pay_unknown',
      /^No such payment of yours\.$/,
    );
    const declined = await cardPayment(t, client, '4000000000000002');
    assert.equal(declined.status, 'failed');
    assertError(await client.call('GET', receiptPath(declined.payment_id)), 409, 'conflict');
  });

  it('another tenant’s payment, at this platform or another, is 404', async () => {
    const owner = await paidTenant(t, api);
    for (const client of [(await newTenant(t, api)).client, (await newTenant(t, otherApi)).client]) {
      assertError(await client.call('GET', receiptPath(owner.payment.payment_id)), 404, 'not_found');
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { payment } = await paidTenant(t, api);
    await assertClientTokenRequired(t, api, {
      method: 'GET',
      url: `/api/client${receiptPath(payment.payment_id)}`,
    });
  });
});
