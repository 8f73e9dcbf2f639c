/**
 * What the page says about the tenant's money, at 320, 375 and 1280 px in the light theme and in dark mode (real
 * Chromium, the server's clock at 1 March 2026): owing, paid ahead, recurring rent after paying and after a
 * one-off amount, the cancel question and the pending panel's neighbour states each read right, fit the width
 * without scrolling sideways, and pass axe.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { axeViolations } from '../support/axe.ts';
import {
  CARD_FEES,
  newTenant,
  openInIntegratorPage,
  pageEnvironmentPerFile,
  paymentFrame,
  screenshot,
  type Tenant,
} from '../support/browser.ts';
import { cardToken, clientOf, PAN } from '../support/payment-client.ts';

const file = pageEnvironmentPerFile({ fees: CARD_FEES });

interface Look {
  width: number;
  colorScheme: 'light' | 'dark';
}

async function open(tenant: Tenant, look: Look): Promise<{ page: Page; frame: FrameLocator }> {
  const opened = await openInIntegratorPage(file.env, tenant, look);
  file.contexts.push(opened.context);
  return opened;
}

/** The state reads right: no sideways scrolling in the frame, axe finds nothing; a screenshot for the record. */
async function check(page: Page, look: Look, state: string): Promise<string[]> {
  const inner = await paymentFrame(file.env, page);
  const width = await inner.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  await screenshot(page, `rent-looks-${state}-${look.width}-${look.colorScheme}`);
  return [
    ...(width > 0 ? [`${state}: scrolls sideways by ${width} px`] : []),
    ...(await axeViolations(inner, state)),
  ];
}

async function tenantWithCard(login: Record<string, unknown> = {}, tenancy: Record<string, unknown> = {}) {
  const tenant = await newTenant(file.env, '1200.00', login, tenancy);
  const client = clientOf(file.env.t, tenant.token);
  assert.equal((await client.saveCard(await cardToken(file.env.t, PAN.visa))).status, 201);
  return { tenant, client };
}

async function again(tenant: Tenant): Promise<Tenant> {
  const answer = await file.env.api.login({ email: tenant.email });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { ...tenant, token: answer.body.token, sessionId: answer.body.session_id };
}

const LOOKS: Look[] = [320, 375, 1280].flatMap((width) =>
  (['light', 'dark'] as const).map((colorScheme) => ({ width, colorScheme })),
);

describe('hosted page: the tenant’s money, at every width and in both themes', () => {
  for (const look of LOOKS) {
    it(`${look.width} px, ${look.colorScheme}`, async () => {
      const found: string[] = [];

      // Owing since November: "You owe", the choices, what the amount pays.
      const owing = await newTenant(
        file.env,
        '1200.00',
        {},
        { start_rent_date: '2025-11-01', rent_due_day: 15 },
      );
      const owed = await open(owing, look);
      await owed.frame.getByTestId('rent-headline').filter({ hasText: 'You owe £4,800.00' }).waitFor();
      await owed.frame.getByTestId('amount-pays').filter({ hasText: 'Pays November 2025' }).waitFor();
      found.push(...(await check(owed.page, look, 'owing')));

      // Paid ahead: April is paid, nothing suggested.
      const { tenant: ahead, client } = await tenantWithCard();
      const paid = await client.pay({
        pure_amount: '2400.00',
        card_token: await cardToken(file.env.t, PAN.visa),
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const later = await again(ahead);
      const aheadPage = await open(later, look);
      await aheadPage.frame
        .getByTestId('rent-headline')
        .filter({ hasText: 'April rent is paid (1 Mar)' })
        .waitFor();
      assert.equal(await aheadPage.frame.getByLabel('Amount (£)').inputValue(), '');
      found.push(...(await check(aheadPage.page, look, 'paid-ahead')));

      // Recurring rent after paying: it starts after what is paid, and says so.
      await aheadPage.frame.getByRole('tab', { name: 'Recurring rent' }).click();
      await aheadPage.frame.getByRole('button', { name: 'Review recurring rent' }).click();
      await aheadPage.frame
        .getByTestId('paid-through')
        .filter({ hasText: 'April rent is paid — first automatic payment 1 May.' })
        .waitFor();
      found.push(...(await check(aheadPage.page, look, 'recurring-after-paying')));
      await aheadPage.frame.getByLabel('I authorise these payments').check();
      await aheadPage.frame.getByRole('button', { name: 'Set up recurring rent' }).click();
      await aheadPage.frame.getByRole('button', { name: 'Cancel recurring rent' }).click();
      await aheadPage.frame.getByText(/^Cancel recurring rent\? No more payments/).waitFor();
      found.push(...(await check(aheadPage.page, look, 'cancel-question')));

      // A one-off fixed amount: recurring rent is the rent.
      const { tenant: catchUp } = await tenantWithCard({ pure_amount: '4800.00' });
      const fixed = await open(catchUp, look);
      await fixed.frame.getByRole('tab', { name: 'Recurring rent' }).click();
      assert.equal(await fixed.frame.getByLabel('Amount each time (£)').inputValue(), '1200.00');
      await fixed.frame.getByText(/The £4,800\.00 your platform set is for this one payment only/).waitFor();
      found.push(...(await check(fixed.page, look, 'recurring-one-off')));

      assert.deepEqual(found, []);
    });
  }
});
