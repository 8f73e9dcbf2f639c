/**
 * Compiled by `npm run typecheck` (tsc -p .), never run: the page's and the SDK's hand-written types must agree with
 * the server's schemas and vocabulary, so a change on one side that the other does not follow fails the build.
 */
import type { Static } from 'typebox';
import type { SavedCardView } from '../../src/cards/view.ts';
import type { PaymentView } from '../../src/payments/view.ts';
import type { ScheduleView } from '../../src/schedules/view.ts';
import type * as Vocabulary from '../../src/shared/vocabulary.ts';
import type * as Page from '../../web/page/api.ts';
import type * as Sdk from '../../web/sdk/rentpay.d.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

export type Checks = [
  Assert<Same<Sdk.PaymentMethod, Vocabulary.PaymentMethod>>,
  Assert<Same<Sdk.PaymentStatus, Vocabulary.PaymentStatus>>,
  Assert<Same<keyof Sdk.Features, Vocabulary.Feature>>,
  Assert<Same<Sdk.Payment, Omit<Static<typeof PaymentView>, 'next_action'>>>,
  Assert<Same<Page.SavedCard['status'], Static<typeof SavedCardView>['status']>>,
  Assert<Same<Page.Schedule['status'], Static<typeof ScheduleView>['status']>>,
];
