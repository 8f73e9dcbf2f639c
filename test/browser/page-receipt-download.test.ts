/**
 * "Download receipt" on the success view and on a reopened paid session, on the hosted page in the platform's iframe
 * and in the SDK's frame: real Chromium saves the tenant's own receipt (a PDF read with the session's token in a
 * header, never in a URL), and a text extractor finds the payment in it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import {
  CARD_FEES,
  fillCard,
  newTenant,
  openInIntegratorPage,
  openSdkCheckout,
  pageEnvironmentPerFile,
  paymentSucceeded,
  screenshot,
  sdkInit,
  sdkPay,
} from '../support/browser.ts';
import { assertInOrder, pdfText } from '../support/pdf-text.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });

/** Presses Download receipt in `frame`; the saved file's name, bytes and the URL it came from. */
async function downloadReceipt(page: Page, frame: FrameLocator) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    frame.getByRole('button', { name: 'Download receipt' }).click(),
  ]);
  const saved = await download.path();
  await frame.getByText('Your receipt (PDF) is downloading.').waitFor();
  return { name: download.suggestedFilename(), url: download.url(), bytes: fs.readFileSync(saved) };
}

describe('hosted page: Download receipt', () => {
  it('right after paying, and again when the paid session is reopened, saves the tenant’s receipt', async () => {
    const tenant = await newTenant(file.env);
    const opened = await openInIntegratorPage(file.env, tenant);
    file.contexts.push(opened.context);
    await fillCard(opened.frame, '4242424242424242', '737');
    await opened.frame.getByRole('button', { name: 'Pay £1,217.40' }).click();
    await paymentSucceeded(file.env, opened.frame);
    const paymentId = /pay_\w+/.exec(await opened.frame.locator('.summary').innerText())![0];

    const saved = await downloadReceipt(opened.page, opened.frame);
    assert.equal(saved.name, `receipt-${paymentId}.pdf`);
    assert.match(saved.url, /^blob:/, 'saved from the bytes, not from a link holding the token');
    const receipt = await pdfText(saved.bytes);
    assertInOrder(receipt.text, [
      `Receipt number ${paymentId}`,
      'Tenant Ada Lovelace',
      'Paid to (landlord) Landlord Ltd',
      `Payment reference ${tenant.paymentReference}`,
      'Paid with Visa •••• 4242',
      'Rent £1,200.00',
      'Fee £17.40',
      'Total paid £1,217.40',
      'March 2026 rent, due 1 Mar 2026 £1,200.00',
    ]);
    await screenshot(opened.page, 'page-receipt-download');

    const reopened = await openInIntegratorPage(file.env, tenant);
    file.contexts.push(reopened.context);
    await reopened.frame.getByRole('heading', { name: 'Rent paid' }).waitFor();
    const again = await downloadReceipt(reopened.page, reopened.frame);
    assert.ok(again.bytes.subarray(0, 5).equals(Buffer.from('%PDF-')));
    assertInOrder((await pdfText(again.bytes)).text, [`Receipt number ${paymentId}`, 'Total paid £1,217.40']);
  });
});

describe('SDK frame: Download receipt', () => {
  it('after SVC.pay() succeeds, saves the receipt of that payment', async () => {
    const tenant = await newTenant(file.env);
    const { context, page } = await openSdkCheckout(file.env);
    file.contexts.push(context);
    assert.deepEqual(await sdkInit(file.env, page, tenant), { ok: true });
    const frame = page.frameLocator('#pay iframe');
    await fillCard(frame, '4242424242424242', '737');
    const paid = await sdkPay(page);
    assert.equal(paid.value.status, 'succeeded', JSON.stringify(paid.value));
    const saved = await downloadReceipt(page, frame);
    assert.equal(saved.name, `receipt-${paid.value.payment_id}.pdf`);
    assertInOrder((await pdfText(saved.bytes)).text, [
      `Receipt number ${paid.value.payment_id}`,
      'Total paid £1,217.40',
    ]);
  });
});
