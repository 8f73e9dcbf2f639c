/**
 * Compiled by `npm run typecheck` (tsc -p .), never run: the page's, the SDK's and the dashboard's hand-written types
 * must agree with the server's schemas and vocabulary, so a change on one side that the other does not follow fails
 * the build. A dashboard type may leave out fields it does not show (what the server sends must fit it).
 */
import type { Static } from 'typebox';
import type { SavedCardView } from '../../src/cards/view.ts';
import type { HomeView } from '../../src/dashboard/home.ts';
import type { ConsoleRun } from '../../src/dashboard/operator-payout-views.ts';
import type { ConsoleIntegrator, SystemHealthView } from '../../src/dashboard/operator-views.ts';
import type {
  DashboardPayment,
  RefundPreviewView,
  TimelineEntry,
} from '../../src/dashboard/payment-views.ts';
import type { HeldPayoutView, PlatformPayoutView } from '../../src/dashboard/payout-views.ts';
import type { PlatformSettingsView } from '../../src/dashboard/settings-view.ts';
import type { TenantSummaryView, TenantView } from '../../src/dashboard/tenant-views.ts';
import type { PaymentView } from '../../src/payments/view.ts';
import type { ScheduleView } from '../../src/schedules/view.ts';
import type * as Vocabulary from '../../src/shared/vocabulary.ts';
import type * as Home from '../../web/dashboard/home/types.ts';
import type * as Operator from '../../web/dashboard/operator/types.ts';
import type * as Payments from '../../web/dashboard/payments/types.ts';
import type * as Payouts from '../../web/dashboard/payouts/types.ts';
import type * as Settings from '../../web/dashboard/settings/types.ts';
import type * as Tenants from '../../web/dashboard/tenants/types.ts';
import type * as Page from '../../web/page/api.ts';
import type * as Sdk from '../../web/sdk/rentpay.d.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** What the server sends fits the dashboard's type. */
type Fits<Server, Web> = [Server] extends [Web] ? true : false;

export type Checks = [
  Assert<Same<Sdk.PaymentMethod, Vocabulary.PaymentMethod>>,
  Assert<Same<Sdk.PaymentStatus, Vocabulary.PaymentStatus>>,
  Assert<Same<keyof Sdk.Features, Vocabulary.Feature>>,
  Assert<Same<Sdk.Payment, Omit<Static<typeof PaymentView>, 'next_action'>>>,
  Assert<Same<Page.SavedCard['status'], Static<typeof SavedCardView>['status']>>,
  Assert<Same<Page.Schedule['status'], Static<typeof ScheduleView>['status']>>,
  Assert<Fits<Static<typeof HomeView>, Home.HomeFigures>>,
  Assert<Fits<Static<typeof DashboardPayment>, Payments.DashboardPayment>>,
  Assert<Fits<Static<typeof TimelineEntry>, Payments.TimelineEntry>>,
  Assert<Fits<Static<typeof RefundPreviewView>, Payments.RefundPreview>>,
  Assert<Fits<Static<typeof TenantSummaryView>, Tenants.TenantSummary>>,
  Assert<Fits<Static<typeof TenantView>, Tenants.Tenant>>,
  Assert<Fits<Static<typeof PlatformPayoutView>, Payouts.PlatformPayout>>,
  Assert<Fits<Static<typeof HeldPayoutView>, Payouts.HeldPayout>>,
  Assert<Fits<Static<typeof PlatformSettingsView>, Settings.PlatformSettings>>,
  Assert<Fits<Static<typeof ConsoleIntegrator>, Operator.ConsoleIntegrator>>,
  Assert<Fits<Static<typeof ConsoleRun>, Operator.ConsoleRun>>,
  Assert<Fits<Static<typeof SystemHealthView>, Operator.SystemHealth>>,
];
