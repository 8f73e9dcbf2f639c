import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, clientOf, PAN, startPaymentApp } from '../../support/payment-client.ts';
import { assertInOrder, fetchPdf } from '../../support/pdf-text.ts';

const receiptPath = (paymentId: string) => `/api/third-party/payments/${paymentId}/receipt.pdf`;

describe('GET /api/third-party/payments/{payment_id}/receipt.pdf (getPaymentReceipt)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let paymentId: string;
  let processorReference: string;

  const pay = async (email: string, number = PAN.visa) => {
    const { token } = await api.loginOk(email);
    const paid = await clientOf(t, token).pay({ card_token: await cardToken(t, number) });
    return paid.body as { payment_id: string; status: string; processor_reference: string };
  };
  const receipt = (id: string, who: Api = api) => fetchPdf(t, receiptPath(id), tokenHeader(who.serverToken));

  before(async () => {
    // The clock starts at 2026-03-01T09:00Z (09:00 in London, GMT); the card fee is 1.45 %.
    ({ t, api, otherApi } = await startPaymentApp());
    await api.onboardOk(
      userBody({
        user_id: 1,
        email: 'receipt@example.com',
        first_name: 'Zoë',
        last_name: 'Brontë',
        tenant: [
          tenancyBody({
            payment_reference: 'RCPT-1',
            address_1: '12 Rue de l’Église',
            recipient_bank_account_name: 'Łukasz Właściciel',
          }),
        ],
      }),
    );
    const paid = await pay('receipt@example.com');
    assert.equal(paid.status, 'succeeded');
    paymentId = paid.payment_id;
    processorReference = paid.processor_reference;
  });
  after(() => t.close());

  it('200: a PDF whose text holds the receipt number, who, what rent, the amounts, the method and the time', async () => {
    const pdf = await receipt(paymentId);
    assert.equal(pdf.pages, 1);
    assert.equal(pdf.title, `Rent receipt ${paymentId}`);
    assertInOrder(pdf.text, [
      'Rent receipt',
      `Receipt number ${paymentId}`,
      'Issued by Test platform through rentpay',
      'Tenant Zoë Brontë',
      'Property 12 Rue de l’Église, London SW1A 1AA',
      'Paid to (landlord) Łukasz Właściciel',
      'Payment reference RCPT-1',
      'Date and time 1 March 2026, 09:00 UK time',
      'Paid with Visa •••• 4242',
      `Processor reference ${processorReference}`,
      'Rent £1,200.00',
      'Fee £17.40',
      'Total paid £1,217.40',
      // The ledger's allocation: the oldest due date first (rent is due from 1 January).
      'January 2026 rent, due 1 Jan 2026 £1,200.00',
      "Generated 1 March 2026, 09:00 UK time from rentpay's records of this payment.",
    ]);
    assert.doesNotMatch(pdf.text, /Refund/);
  });

  it('the same bytes for the same records at the same time, well under 100 KB', async () => {
    const first = await receipt(paymentId);
    const second = await receipt(paymentId);
    assert.ok(first.bytes.equals(second.bytes), 'the same bytes twice');
    assert.ok(first.bytes.length < 100_000, `${first.bytes.length} bytes`);
    // The fonts are embedded (a subset), and the document is tagged.
    const raw = first.bytes.toString('latin1');
    assert.match(raw, /\/FontFile2 /);
    assert.match(raw, /\/BaseFont \/[A-Z]{6}\+DejaVuSans\b/);
    assert.match(raw, /\/StructTreeRoot /);
    assert.match(raw, /\/MediaBox \[0 0 595\.28 841\.89\]/);
  });

  it('a refund, and the rent left paid, show on the receipt once they happen', async () => {
    t.clock.advance(86_400_000);
    const refunded = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${paymentId}/refunds/`,
      headers: tokenHeader(api.serverToken),
      payload: { amount: '200.00' },
    });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    const pdf = await receipt(paymentId);
    assertInOrder(pdf.text, [
      'Total paid £1,217.40',
      'January 2026 rent, due 1 Jan 2026 £1,000.00',
      'Refunds and disputes',
      `Refund ${refunded.body.refund_id}, 2 March 2026, 09:00 UK time −£200.00`,
      'Kept after these £1,017.40',
      'Generated 2 March 2026, 09:00 UK time',
    ]);
  });

  it('names that are long, right to left, emoji or PDF syntax wrap and stay text', async () => {
    const long = 'Ŵ'.repeat(150);
    const syntax = 'O’Brien) \\ >> endstream (x) <</Type /Page>>';
    await api.onboardOk(
      userBody({
        user_id: 2,
        email: 'strange@example.com',
        first_name: long,
        last_name: syntax,
        tenant: [
          tenancyBody({
            payment_reference: 'RCPT-2',
            address_1: '5 Emoji Row 🏠️',
            recipient_bank_account_name: 'דוד כהן',
          }),
        ],
      }),
    );
    const paid = await pay('strange@example.com');
    const before = await receipt(paymentId);
    const pdf = await receipt(paid.payment_id);
    // What was drawn before never changes a document: the first receipt again, the same bytes.
    assert.ok((await receipt(paymentId)).bytes.equals(before.bytes), 'the same bytes after other names');
    assert.equal(pdf.pages, 1);
    // The long name wraps over several lines, whole; the PDF syntax in the name is text, not structure.
    assert.ok(pdf.text.replace(/\s+/g, '').includes(`Tenant${long}`), pdf.text);
    // A name wholly right to left is laid out right to left; an emoji DejaVu Sans lacks shows as "�".
    assertInOrder(pdf.text, [syntax, '5 Emoji Row �, London', 'Paid to (landlord)', 'Total paid £1,217.40']);
    assert.match(pdf.text, /Paid to \(landlord\) (כהן ?דוד|דוד ?כהן)\n/);
    assert.equal(pdf.bytes.toString('latin1').match(/\/Type \/Page\b/g)?.length, 1);
  });

  it('404 for an unknown payment and for another integrator’s alike; 409 for a payment that did not succeed', async () => {
    const headers = tokenHeader(otherApi.serverToken);
    assertError(
      await send(t, { method: 'GET', url: receiptPath(paymentId), headers }),
      404,
      'not_found',
      new RegExp(`^No payment ${paymentId}\\.$`),
    );
    assertError(
      await send(t, {
        method: 'GET',
        url: receiptPath('pay_unknown0000000000000'),
        headers: tokenHeader(api.serverToken),
      }),
      404,
      'not_found',
    );
    const declined = await pay('receipt@example.com', '4000000000000002');
    assert.equal(declined.status, 'failed');
    assertError(
      await send(t, {
        method: 'GET',
        url: receiptPath(declined.payment_id),
        headers: tokenHeader(api.serverToken),
      }),
      409,
      'conflict',
      /^Payment pay_\w+ is failed: only a succeeded payment has a receipt\.$/,
    );
  });

  it('400 for an id that is not a payment id; 401 without a server token', async () => {
    assertError(
      await send(t, { method: 'GET', url: receiptPath('ses_abc'), headers: tokenHeader(api.serverToken) }),
      400,
      'invalid_request',
      /^Invalid params: payment_id: /,
    );
    assertError(await send(t, { method: 'GET', url: receiptPath(paymentId) }), 401, 'unauthorized');
  });
});
