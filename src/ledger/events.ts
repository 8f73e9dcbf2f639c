import { type Static, Type } from 'typebox';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

/** The data of rent_due_soon and rent_overdue. */
export const RentReminderEventData = Type.Object(
  {
    user_id: Type.Integer({ description: 'Your user_id of the tenant.' }),
    email: Type.String(),
    payment_reference: Type.String({ description: 'The tenancy.' }),
    due_date: Type.String({ format: 'date', description: 'The due date this reminder is about.' }),
    amount_due: { ...Money, description: 'What is still unpaid of the rent due on due_date.' },
    arrears: {
      ...Money,
      description: 'The tenancy’s arrears on the day the reminder was made (see the ledger).',
    },
    days_after_due: Type.Integer({
      description:
        'rent_overdue: 1 or 7 (days after the due date it is about). rent_due_soon: minus the days before it ' +
        '(-3 with reminder_days_before 3).',
    }),
  },
  { title: 'RentReminderEventData' },
);
export type RentReminderEventData = Static<typeof RentReminderEventData>;
