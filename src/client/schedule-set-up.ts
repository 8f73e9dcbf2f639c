import { type Static, Type } from 'typebox';
import { FieldValidationError } from '../platform/errors.ts';
import { ErrorResponse } from '../platform/http/schemas.ts';
import type { CreateScheduleInput } from '../schedules/service.ts';
import { AmountInput, amountPence } from '../sessions/client-schemas.ts';
import type { ClientContext } from '../sessions/service.ts';
import { fixedAmountPence } from '../sessions/service.ts';
import { formatPence } from '../shared/money.ts';

/** What the tenant chooses when setting up recurring rent: the body of a preview, and most of a set-up's. */
export const PreviewBody = Type.Object({
  saved_card_id: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'An active saved card of this user.',
  }),
  pure_amount: Type.Optional(
    AmountInput(
      'Pounds before the fee, e.g. "1200.00". Default: the tenancy’s rent. On a session whose amount the platform ' +
        'fixed (that amount is for one payment) recurring rent charges the tenancy’s rent: any other amount is ' +
        'refused (400).',
      '1200.00',
    ),
  ),
  use_installment_plan: Type.Optional(
    Type.Boolean({
      description: 'Charge the tenancy’s installment plan. Default: true when the tenancy has one.',
    }),
  ),
});

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1217.40'] });
const PricedCharge = Type.Object({
  due_date: Type.String({ format: 'date' }),
  pure_amount: Money,
  fee: Money,
  amount: Money,
});

export const SchedulePreviewView = Type.Object(
  {
    pure_amount: { ...Money, description: 'The first charge before the fee.' },
    fee: { ...Money, description: 'The card fee of the first charge, at today’s rate.' },
    amount: { ...Money, description: 'What the first charge takes from the card: pure_amount plus fee.' },
    installment_plan: Type.Boolean(),
    payments: Type.Integer({
      description: 'How many charges it makes until the tenancy (or the plan) ends.',
    }),
    upcoming: Type.Array(PricedCharge, { description: 'The first charges (up to three), with their dates.' }),
    last_due_date: Type.String({ format: 'date', description: 'The date of the last charge.' }),
    paid_through: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description:
        'The last due date already paid in full before the first charge (the tenant paid ahead, or has credit): ' +
        'the schedule starts after it and never charges a due date already paid. Null when the first charge is ' +
        'the first due date from today.',
    }),
    authorization: Type.Object({
      version: Type.String({ description: 'The version of the wording.' }),
      text: Type.String({
        description: 'The sentence the tenant agrees to; show it as it is, and send it back to set up.',
      }),
    }),
  },
  { title: 'SchedulePreview' },
);

/** The 409s of a set-up (and so of its preview). */
export const SetUpConflict = {
  ...ErrorResponse,
  description:
    'feature_disabled: recurring payments are off for this integration; conflict: the tenancy is not active, has ' +
    'a live schedule already, or has no rent due before it ends.',
};

/** The set-up's input from a preview's or a set-up's body: 400 on a refused amount. */
export function setUpInput(request: {
  body: Static<typeof PreviewBody>;
  client: ClientContext;
}): CreateScheduleInput {
  const { pure_amount: pureAmount, saved_card_id: savedCardId, use_installment_plan } = request.body;
  // Its form is the schema's to check.
  let purePence = pureAmount === undefined ? undefined : amountPence(pureAmount);
  // A session's fixed amount is for one payment (a catch-up may be four months' rent): recurring rent charges the
  // tenancy's rent (or its plan), never that amount, and the tenant cannot choose another on such a session.
  const { session, tenancy } = request.client;
  const fixed = fixedAmountPence(session);
  const rentPence = Number(tenancy.amount_pence);
  if (fixed !== undefined && purePence !== undefined && purePence !== rentPence) {
    throw new FieldValidationError({
      pure_amount: [
        `Your platform fixed this session’s amount (${formatPence(fixed)}) for one payment; recurring rent ` +
          `charges the tenancy’s rent (${formatPence(rentPence)}). Leave pure_amount out.`,
      ],
    });
  }
  if (fixed !== undefined) purePence = undefined;
  return { savedCardId, purePence, useInstallmentPlan: use_installment_plan };
}
