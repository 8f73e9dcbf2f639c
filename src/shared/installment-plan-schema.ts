import { type Static, Type } from 'typebox';
import type { InstallmentPlan } from './vocabulary.ts';

/**
 * A tenancy's installment plan as the database stores it (jsonb), as a checked schema for the server's statements.
 * Apart from vocabulary.ts so that the page's bundle, which imports the vocabulary, never pulls in TypeBox.
 */
export const INSTALLMENT_PLAN = Type.Object({
  total_amount_pence: Type.Union([Type.Integer(), Type.Null()]),
  installments: Type.Array(
    Type.Object({
      installment_number: Type.Integer(),
      due_date: Type.String(),
      amount_pence: Type.Integer(),
    }),
  ),
});

/** A stored plan column: a plan, or null for a tenancy without one. */
export const INSTALLMENT_PLAN_COLUMN = Type.Union([INSTALLMENT_PLAN, Type.Null()]);

// Compiles only while the schema's type and the vocabulary's are the same shape.
type SameShape = Static<typeof INSTALLMENT_PLAN> extends InstallmentPlan ? true : never;
export const INSTALLMENT_PLAN_MATCHES_VOCABULARY: SameShape = true;
